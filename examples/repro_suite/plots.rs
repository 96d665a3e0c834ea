//! SVG charts of the suite (plotters, SVG backend, no font dependency).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Res = Result<(), Box<dyn std::error::Error>>;

/// The label drawn above the stub of a value at or below the floor.
pub const ZERO_MARK: &str = "0";

/// A grouped bar chart on a log scale, like the papers' bar charts: one group per label in
/// `groups`, one bar per series. Missing values are skipped; values at or below `floor` (exact
/// zeros included) are drawn as a stub at the floor and marked "0" above the stub.
pub fn grouped_bars_log(
    path: &Path,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[(String, Vec<Option<f64>>)],
    floor: f64,
) -> Res {
    let root = SVGBackend::new(path, (1100, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let max = series
        .iter()
        .flat_map(|s| s.1.iter().flatten())
        .fold(floor * 10.0, |m, &v| m.max(v));
    // Spare decades on top so that the legend box (about 15 px per series on a ~540 px plot)
    // stays above the tallest bar.
    let used = max.log10().ceil() + 0.5 - floor.log10();
    let legend = ((series.len() as f64 * 15.0 + 30.0) / 540.0).min(0.6);
    let top = 10f64.powf(max.log10().ceil() + 0.5 + legend * used / (1.0 - legend));
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..groups.len() as f64, (floor..top).log_scale())?;
    // Key points every half unit: the group labels sit at the centres (g + 0.5).
    let label_at = |x: &f64| {
        let g = (x - 0.5).round();
        if (x - 0.5 - g).abs() < 1e-6 && g >= 0.0 {
            groups.get(g as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2 * groups.len() + 1)
        .x_label_formatter(&label_at)
        .y_desc(y_desc)
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()?;
    let nseries = series.len().max(1) as f64;
    let width = 0.8 / nseries;
    for (k, (name, values)) in series.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        let bars: Vec<_> = values
            .iter()
            .enumerate()
            .filter_map(|(g, v)| v.map(|v| (g, v)))
            .map(|(g, v)| {
                let x0 = g as f64 + 0.1 + k as f64 * width;
                let y = if v > floor { v } else { floor * 1.5 };
                Rectangle::new([(x0, floor), (x0 + width * 0.9, y)], color.filled())
            })
            .collect();
        chart
            .draw_series(bars)?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        // The "0" above each stub, so that an exact zero is not read as a tiny value.
        let zeros: Vec<_> = values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_some_and(|v| v <= floor))
            .map(|(g, _)| {
                let xc = g as f64 + 0.1 + k as f64 * width + width * 0.45;
                Text::new(
                    ZERO_MARK,
                    (xc, floor * 2.0),
                    ("sans-serif", 12)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Center, VPos::Bottom)),
                )
            })
            .collect();
        chart.draw_series(zeros)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// Lines on a log y axis: `|y|` against `x`, one line per series; points with `|y|` below
/// `floor` are drawn at the floor.
pub fn lines_log(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[(String, Vec<(f64, f64)>)],
    floor: f64,
) -> Res {
    let root = SVGBackend::new(path, (1000, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let xmax = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let ymax = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1.abs()))
        .fold(floor * 10.0, f64::max);
    let top = 10f64.powf(ymax.log10().ceil() + 0.3);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..xmax, (floor..top).log_scale())?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    for (k, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|&(x, y)| (x, y.abs().max(floor))),
                color.stroke_width(2),
            ))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
