//! Validation: a kernel's result against a CPU reference computed with `Stochastic<T>` on the
//! same input, element by element: the exact digits DSA gives each side and the digits the two
//! results have in common.

use std::fmt;

use stoch_core::{StochFloat, Stochastic};

use crate::error::{GpuError, Result};
use crate::flags::FlagCounts;

/// One element of a [`Validation`].
#[derive(Clone, Copy)]
pub struct ElementComparison<T: StochFloat> {
    /// Position in the arrays.
    pub index: usize,
    /// The GPU's value.
    pub gpu: Stochastic<T>,
    /// The CPU reference's value.
    pub cpu: Stochastic<T>,
    /// Exact significant digits of the GPU value (DSA estimate).
    pub gpu_digits: u32,
    /// Exact significant digits of the CPU value.
    pub cpu_digits: u32,
    /// Decimal digits the two means have in common ([`common_digits`]).
    pub common_digits: u32,
}

impl<T: StochFloat> fmt::Debug for ElementComparison<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ElementComparison")
            .field("index", &self.index)
            .field("gpu", &(self.gpu.samples(), self.gpu.flags().bits()))
            .field("cpu", &(self.cpu.samples(), self.cpu.flags().bits()))
            .field("gpu_digits", &self.gpu_digits)
            .field("cpu_digits", &self.cpu_digits)
            .field("common_digits", &self.common_digits)
            .finish()
    }
}

impl<T: StochFloat> fmt::Debug for Validation<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validation")
            .field("elements", &self.elements)
            .field("summary", &self.summary)
            .finish()
    }
}

impl<T: StochFloat> ElementComparison<T> {
    /// Whether the two results agree as far as DSA says they are exact: each side's mean is
    /// within its claimed digits of the exact result (95% confidence each), so two results
    /// claiming `d` exact digits share at least `d - 1` of them (one digit can be lost to the
    /// rounding of the last one). Inconsistent elements point to a bug or to a part of the
    /// computation whose error the estimate misses.
    #[must_use]
    pub fn is_consistent(&self) -> bool {
        self.common_digits + 1 >= self.gpu_digits.min(self.cpu_digits)
    }
}

/// Summary statistics of a [`Validation`].
#[derive(Debug, Clone)]
pub struct Summary {
    /// Number of elements.
    pub len: usize,
    /// Largest digit count for the type (7 or 15): the histograms have `max_digits + 1` bins.
    pub max_digits: u32,
    /// `gpu_histogram[d]`: elements whose GPU value has `d` exact digits.
    pub gpu_histogram: Vec<usize>,
    /// Same for the CPU values.
    pub cpu_histogram: Vec<usize>,
    /// `common_histogram[d]`: elements whose two results share `d` digits.
    pub common_histogram: Vec<usize>,
    /// Mean exact digits, GPU.
    pub mean_gpu_digits: f64,
    /// Mean exact digits, CPU.
    pub mean_cpu_digits: f64,
    /// Mean digits in common.
    pub mean_common_digits: f64,
    /// Elements that share fewer digits than both sides claim, minus one (see
    /// [`ElementComparison::is_consistent`]).
    pub inconsistent: usize,
    /// Indices of the elements with the fewest digits in common (at most 10), worst first.
    pub worst: Vec<usize>,
    /// Instability flags on the GPU values.
    pub gpu_flags: FlagCounts,
    /// Instability flags on the CPU values.
    pub cpu_flags: FlagCounts,
}

/// Per-element comparison of a GPU result with its CPU reference, and the summary.
#[derive(Clone)]
pub struct Validation<T: StochFloat> {
    /// One entry per element.
    pub elements: Vec<ElementComparison<T>>,
    /// Histograms, means, worst elements.
    pub summary: Summary,
}

/// Decimal digits two numbers have in common: `floor(-log10(|a - b| / max(|a|, |b|)))`,
/// clamped to `0..=max`; equal numbers share `max` digits.
#[must_use]
pub fn common_digits(a: f64, b: f64, max: u32) -> u32 {
    if a == b {
        return max;
    }
    if !a.is_finite() || !b.is_finite() {
        return 0;
    }
    let rel = (a - b).abs() / a.abs().max(b.abs());
    let d = -rel.log10();
    if d.is_nan() || d < 0.0 {
        0
    } else {
        (d.floor() as u32).min(max)
    }
}

/// Compare a GPU result with its CPU reference.
///
/// Two computed zeros share all digits (both say `@.0`).
///
/// # Errors
///
/// [`GpuError::LengthMismatch`] when the slices differ in length.
pub fn compare<T: StochFloat>(
    gpu: &[Stochastic<T>],
    cpu: &[Stochastic<T>],
) -> Result<Validation<T>> {
    if gpu.len() != cpu.len() {
        return Err(GpuError::LengthMismatch {
            left: gpu.len(),
            right: cpu.len(),
        });
    }
    let max = T::MAX_DIGITS;
    let bins = max as usize + 1;
    let mut s = Summary {
        len: gpu.len(),
        max_digits: max,
        gpu_histogram: vec![0; bins],
        cpu_histogram: vec![0; bins],
        common_histogram: vec![0; bins],
        mean_gpu_digits: 0.0,
        mean_cpu_digits: 0.0,
        mean_common_digits: 0.0,
        inconsistent: 0,
        worst: Vec::new(),
        gpu_flags: FlagCounts::of(gpu),
        cpu_flags: FlagCounts::of(cpu),
    };
    let mut elements = Vec::with_capacity(gpu.len());
    for (index, (&g, &c)) in gpu.iter().zip(cpu).enumerate() {
        let (gd, cd) = (g.digits().min(max), c.digits().min(max));
        let common = if g.is_computed_zero() && c.is_computed_zero() {
            max
        } else {
            common_digits(g.to_f64(), c.to_f64(), max)
        };
        let e = ElementComparison {
            index,
            gpu: g,
            cpu: c,
            gpu_digits: gd,
            cpu_digits: cd,
            common_digits: common,
        };
        s.gpu_histogram[gd as usize] += 1;
        s.cpu_histogram[cd as usize] += 1;
        s.common_histogram[common as usize] += 1;
        s.mean_gpu_digits += f64::from(gd);
        s.mean_cpu_digits += f64::from(cd);
        s.mean_common_digits += f64::from(common);
        if !e.is_consistent() {
            s.inconsistent += 1;
        }
        elements.push(e);
    }
    if !elements.is_empty() {
        let n = elements.len() as f64;
        s.mean_gpu_digits /= n;
        s.mean_cpu_digits /= n;
        s.mean_common_digits /= n;
    }
    let mut order: Vec<usize> = (0..elements.len()).collect();
    order.sort_by_key(|&i| {
        (
            elements[i].common_digits,
            elements[i].gpu_digits.min(elements[i].cpu_digits),
            i,
        )
    });
    order.truncate(10);
    s.worst = order;
    Ok(Validation {
        elements,
        summary: s,
    })
}

/// Run the GPU side and the CPU reference, then [`compare`] them.
///
/// # Errors
///
/// The GPU side's error, or [`GpuError::LengthMismatch`].
pub fn validate<T: StochFloat>(
    gpu: impl FnOnce() -> Result<Vec<Stochastic<T>>>,
    cpu: impl FnOnce() -> Vec<Stochastic<T>>,
) -> Result<Validation<T>> {
    let g = gpu()?;
    let c = cpu();
    compare(&g, &c)
}

fn histogram(f: &mut fmt::Formatter<'_>, label: &str, h: &[usize]) -> fmt::Result {
    write!(f, "  {label:<8}")?;
    for c in h {
        write!(f, "{c:>7}")?;
    }
    writeln!(f)
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} elements: mean exact digits GPU {:.2}, CPU {:.2}; mean digits in common {:.2}; {} inconsistent",
            self.len, self.mean_gpu_digits, self.mean_cpu_digits, self.mean_common_digits, self.inconsistent
        )?;
        write!(f, "  {:<8}", "digits")?;
        for d in 0..=self.max_digits {
            write!(f, "{d:>7}")?;
        }
        writeln!(f)?;
        histogram(f, "GPU", &self.gpu_histogram)?;
        histogram(f, "CPU", &self.cpu_histogram)?;
        histogram(f, "common", &self.common_histogram)?;
        writeln!(f, "  GPU flags: {}", self.gpu_flags)?;
        write!(f, "  CPU flags: {}", self.cpu_flags)
    }
}

impl<T: StochFloat> fmt::Display for Validation<T>
where
    Stochastic<T>: fmt::Display,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.summary)?;
        if !self.summary.worst.is_empty() {
            writeln!(f, "  worst elements (fewest digits in common):")?;
            writeln!(
                f,
                "  {:>8}  {:>24}  {:>24}  {:>4} {:>4} {:>6}",
                "index", "GPU", "CPU", "dGPU", "dCPU", "common"
            )?;
            for &i in &self.summary.worst {
                let e = &self.elements[i];
                writeln!(
                    f,
                    "  {:>8}  {:>24}  {:>24}  {:>4} {:>4} {:>6}",
                    e.index,
                    e.gpu.to_string(),
                    e.cpu.to_string(),
                    e.gpu_digits,
                    e.cpu_digits,
                    e.common_digits
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_digits_of_close_numbers() {
        assert_eq!(common_digits(1.0, 1.0, 15), 15);
        assert_eq!(common_digits(1.0, 1.001, 15), 3);
        assert_eq!(common_digits(-1.110479, -1.110204, 7), 3);
        assert_eq!(common_digits(1.0, -1.0, 7), 0);
        assert_eq!(common_digits(0.0, 1e-30, 7), 0);
        assert_eq!(common_digits(f64::NAN, 1.0, 7), 0);
    }
}
