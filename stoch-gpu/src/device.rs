//! The device: probing, the module cache, device buffers of stochastic values, user kernels.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, LaunchArgs,
    ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;
use stoch_core::{StochFloat, Stochastic};

use crate::error::{GpuError, Result};
use crate::kernels::{self, KernelSource};
use crate::nvrtc::{self, Target};

mod private {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A sample type the device kernels exist for: `f32` (`stoch_float`) or `f64`
/// (`stoch_double`). Sealed.
pub trait GpuFloat: StochFloat + DeviceRepr + private::Sealed {
    /// Suffix of the kernels' entry points for this type: `"f32"` or `"f64"`.
    const SUFFIX: &'static str;
    /// Name of the device type in `stochastic.cuh`.
    const DEVICE_TYPE: &'static str;
}

impl GpuFloat for f32 {
    const SUFFIX: &'static str = "f32";
    const DEVICE_TYPE: &'static str = "stoch_float";
}

impl GpuFloat for f64 {
    const SUFFIX: &'static str = "f64";
    const DEVICE_TYPE: &'static str = "stoch_double";
}

// The byte copies below rely on these sizes (and on the field order pinned by the tests).
const _: () = assert!(std::mem::size_of::<Stochastic<f32>>() == 16);
const _: () = assert!(std::mem::align_of::<Stochastic<f32>>() == 16);
const _: () = assert!(std::mem::size_of::<Stochastic<f64>>() == 32);
const _: () = assert!(std::mem::align_of::<Stochastic<f64>>() == 32);

/// View stochastic values as their bytes.
pub(crate) fn as_bytes<T: StochFloat>(values: &[Stochastic<T>]) -> &[u8] {
    // SAFETY: `Stochastic<T>` is `#[repr(C)]` plain data (three samples, a flag byte, padding
    // bytes that are always written: zeros or the upper bytes of 1), so it has no uninitialised
    // bytes; the slice covers
    // exactly `size_of_val(values)` bytes of one allocation, and u8 has alignment 1.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

/// View stochastic values as writable bytes.
fn as_bytes_mut<T: StochFloat>(values: &mut [Stochastic<T>]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; in addition every byte pattern is a valid `Stochastic<T>`
    // (floats, a u8 flag byte and u8 padding), and the device writes only values built by
    // stochastic.cuh, whose padding is zero, one of the two paddings `stoch_core` accepts.
    unsafe {
        std::slice::from_raw_parts_mut(
            values.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(values),
        )
    }
}

/// A device array of `Stochastic<T>` values (`stoch_float` / `stoch_double` on the device),
/// stored as raw bytes with exactly the host layout.
#[derive(Debug)]
pub struct DeviceBuffer<T: GpuFloat> {
    bytes: CudaSlice<u8>,
    len: usize,
    marker: PhantomData<T>,
}

impl<T: GpuFloat> DeviceBuffer<T> {
    /// Number of stochastic values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The underlying bytes, to pass to a user kernel as a `stoch_float*` / `stoch_double*`
    /// argument (see [`Gpu::launch_builder`]).
    #[must_use]
    pub fn raw(&self) -> &CudaSlice<u8> {
        &self.bytes
    }

    /// The underlying bytes, mutable (for kernel outputs).
    pub fn raw_mut(&mut self) -> &mut CudaSlice<u8> {
        &mut self.bytes
    }
}

/// Default launch seed when neither `STOCH_SEED` nor [`Gpu::set_seed`] gives one.
pub const DEFAULT_SEED: u64 = 0x5EED_0F57_0C4A_5700;

/// One CUDA device with its stream, compiled-module cache and launch seed: the launch API of
/// [`crate::launch`].
///
/// Kernels are compiled by NVRTC for the device's own architecture (`sm_XY`, loaded as a
/// CUBIN, no PTX JIT) on first use and cached for the life of the `Gpu`.
///
/// # Random streams
///
/// Every launch gets a seed derived from the base seed and the number of launches made so far,
/// so a program repeats exactly for a given base seed (`STOCH_SEED`, or [`Gpu::set_seed`]).
#[derive(Debug)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: u32,
    name: String,
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
    base_seed: AtomicU64,
    launches: AtomicU64,
}

impl Gpu {
    /// Open device 0.
    ///
    /// # Errors
    ///
    /// [`GpuError::NoDriver`], [`GpuError::NoDevice`] or [`GpuError::NoNvrtc`]: never a panic,
    /// also on a machine without CUDA.
    pub fn new() -> Result<Gpu> {
        Self::with_ordinal(0)
    }

    /// Open the device with this ordinal.
    ///
    /// # Errors
    ///
    /// As [`Gpu::new`].
    pub fn with_ordinal(ordinal: usize) -> Result<Gpu> {
        if !driver_available() {
            return Err(GpuError::NoDriver);
        }
        let count = CudaContext::device_count().map_err(|e| GpuError::NoDevice(Some(e)))?;
        if count <= 0 || ordinal >= count as usize {
            return Err(GpuError::NoDevice(None));
        }
        if !nvrtc::available() {
            return Err(GpuError::NoNvrtc);
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| GpuError::NoDevice(Some(e)))?;
        let (major, minor) = ctx.compute_capability()?;
        let name = ctx.name()?;
        let stream = ctx.default_stream();
        let base_seed = std::env::var("STOCH_SEED")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_SEED);
        Ok(Gpu {
            ctx,
            stream,
            arch: (major as u32) * 10 + minor as u32,
            name,
            modules: Mutex::new(HashMap::new()),
            base_seed: AtomicU64::new(base_seed),
            launches: AtomicU64::new(0),
        })
    }

    /// The device's name, e.g. `"NVIDIA H100 80GB HBM3"`.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compute capability as `10 * major + minor` (90 for an H100).
    #[must_use]
    pub fn arch(&self) -> u32 {
        self.arch
    }

    /// The cudarc context.
    #[must_use]
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every launch and copy of this `Gpu` goes to.
    #[must_use]
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Set the base seed and restart the launch count: the launches that follow repeat
    /// exactly those made after an earlier `set_seed` with the same seed.
    pub fn set_seed(&self, seed: u64) {
        self.base_seed.store(seed, Ordering::SeqCst);
        self.launches.store(0, Ordering::SeqCst);
    }

    /// The seed for the next launch (advances the launch count).
    pub fn next_seed(&self) -> u64 {
        let n = self.launches.fetch_add(1, Ordering::SeqCst);
        self.base_seed
            .load(Ordering::SeqCst)
            .wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// Copy host values to a new device buffer, byte for byte.
    ///
    /// # Errors
    ///
    /// [`GpuError::Driver`] when allocation or the copy fails.
    pub fn upload<T: GpuFloat>(&self, values: &[Stochastic<T>]) -> Result<DeviceBuffer<T>> {
        if values.is_empty() {
            return self.zeros(0);
        }
        let bytes = self.stream.clone_htod(as_bytes(values))?;
        Ok(DeviceBuffer {
            bytes,
            len: values.len(),
            marker: PhantomData,
        })
    }

    /// A device buffer of `len` exact zeros (all bytes zero).
    ///
    /// # Errors
    ///
    /// [`GpuError::Driver`] when allocation fails.
    pub fn zeros<T: GpuFloat>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        // At least one byte: a zero-sized device allocation is an error for the driver.
        let bytes = self
            .stream
            .alloc_zeros::<u8>((len * std::mem::size_of::<Stochastic<T>>()).max(1))?;
        Ok(DeviceBuffer {
            bytes,
            len,
            marker: PhantomData,
        })
    }

    /// Copy a device buffer back to the host, byte for byte (waits for the stream).
    ///
    /// # Errors
    ///
    /// [`GpuError::Driver`] when the copy (or an earlier launch on the stream) fails.
    pub fn download<T: GpuFloat>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<Stochastic<T>>> {
        if buf.len == 0 {
            // The allocation behind an empty buffer is one placeholder byte (see `zeros`):
            // nothing to copy, and the device is not touched.
            return Ok(Vec::new());
        }
        let mut out = vec![Stochastic::<T>::ZERO; buf.len];
        self.stream
            .memcpy_dtoh(&buf.bytes, as_bytes_mut(&mut out))?;
        self.stream.synchronize()?;
        Ok(out)
    }

    /// Copy plain data (e.g. `f32`) to the device.
    ///
    /// # Errors
    ///
    /// [`GpuError::Driver`] when allocation or the copy fails.
    pub fn upload_plain<P: DeviceRepr>(&self, values: &[P]) -> Result<CudaSlice<P>> {
        Ok(self.stream.clone_htod(values)?)
    }

    /// A zeroed device array of plain data.
    ///
    /// # Errors
    ///
    /// [`GpuError::Driver`] when allocation fails.
    pub fn zeros_plain<P: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<P>> {
        Ok(self.stream.alloc_zeros(len)?)
    }

    /// Copy plain data back to the host (waits for the stream).
    ///
    /// # Errors
    ///
    /// [`GpuError::Driver`] when the copy (or an earlier launch) fails.
    pub fn download_plain<P: DeviceRepr>(&self, buf: &CudaSlice<P>) -> Result<Vec<P>> {
        let v = self.stream.clone_dtoh(buf)?;
        self.stream.synchronize()?;
        Ok(v)
    }

    /// Wait until every launch and copy on the stream has finished.
    ///
    /// # Errors
    ///
    /// [`GpuError::Driver`] when a launch failed.
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }

    fn module(
        &self,
        key: &str,
        compile: impl FnOnce(u32) -> Result<Vec<u8>>,
    ) -> Result<Arc<CudaModule>> {
        let mut cache = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = cache.get(key) {
            return Ok(m.clone());
        }
        let cubin = compile(self.arch)?;
        let module = self.ctx.load_module(Ptx::from_binary(cubin))?;
        cache.insert(key.to_string(), module.clone());
        Ok(module)
    }

    /// An entry point of a [`KernelSource`]: a shipped kernel or one of the caller's own
    /// table, compiled with [`SHIPPED_DEFINES`](crate::kernels::SHIPPED_DEFINES) (blocks of at
    /// most [`SHIPPED_MAX_BLOCK_THREADS`](crate::kernels::SHIPPED_MAX_BLOCK_THREADS) threads)
    /// and loaded on first use, then cached for the life of the `Gpu`.
    ///
    /// # Errors
    ///
    /// [`GpuError::UnknownKernel`] when `k` does not list `entry`, or a compile / load error.
    pub fn kernel(&self, k: &'static KernelSource, entry: &str) -> Result<CudaFunction> {
        if !k.entries.contains(&entry) {
            return Err(GpuError::UnknownKernel(format!("{entry} (in {})", k.name)));
        }
        // The source's address keeps apart two files of the same name (at worst, one source
        // seen at two addresses is compiled twice).
        let key = format!("{}@{:p}", k.name, k.source.as_ptr());
        let module = self.module(&key, |arch| {
            let c = nvrtc::compile_kernel(k, Target::Real(arch))?;
            Ok(c.cubin.unwrap_or_default())
        })?;
        Ok(module.load_function(entry)?)
    }

    /// A shipped kernel by entry-point name (see [`Gpu::kernel`]).
    ///
    /// # Errors
    ///
    /// [`GpuError::UnknownKernel`], or a compile / load error.
    pub fn function(&self, entry: &str) -> Result<CudaFunction> {
        let k =
            kernels::source_of(entry).ok_or_else(|| GpuError::UnknownKernel(entry.to_string()))?;
        self.kernel(k, entry)
    }

    /// Compile a user kernel source (it may `#include "stochastic.cuh"`) with the crate's
    /// options and `defines` (`-DNAME=VALUE`, e.g. `("STOCH_CANCEL_LEVEL", "3")`), load it and
    /// return the named entry point. Modules are cached by name, source and defines.
    ///
    /// # Errors
    ///
    /// [`GpuError::Compile`] (with NVRTC's log) or a load error.
    pub fn user_function(
        &self,
        name: &str,
        source: &str,
        defines: &[(&str, &str)],
        entry: &str,
    ) -> Result<CudaFunction> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        source.hash(&mut h);
        defines.hash(&mut h);
        let key = format!("user:{name}:{:016x}", h.finish());
        let module = self.module(&key, |arch| {
            let c = nvrtc::compile(name, source, Target::Real(arch), defines)?;
            Ok(c.cubin.unwrap_or_default())
        })?;
        Ok(module.load_function(entry)?)
    }

    /// Start a launch of a user kernel: push arguments with `.arg(..)` (device buffers through
    /// [`DeviceBuffer::raw`] / [`DeviceBuffer::raw_mut`], scalars by reference, the seed from
    /// [`Gpu::next_seed`]) and submit with cudarc's `unsafe fn launch(cfg)`.
    ///
    /// This is the one `unsafe` path of the crate. Calling `launch` is sound only when:
    /// - the arguments match the kernel's C signature in number, order and type (a
    ///   `stoch_float*` takes `raw()` of a `DeviceBuffer<f32>`, an `int` takes `&i32`, the
    ///   seed `unsigned long long` takes `&u64`);
    /// - the kernel reads and writes only inside the buffers passed, for the launch shape
    ///   given, and writes through pointers only to buffers passed with `raw_mut()`;
    /// - every block has at most `STOCH_MAX_BLOCK_THREADS` threads (1024 unless redefined)
    ///   and every thread calls `stoch_init_at` (or `stoch_init`) before stochastic arithmetic.
    ///
    /// After the launch, download the outputs and merge their flags with
    /// [`crate::record_flags`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn main() -> Result<(), stoch_gpu::GpuError> {
    /// use stoch_core::Sf32;
    /// use stoch_gpu::{cudarc::driver::{LaunchConfig, PushKernelArg}, Gpu};
    /// let src = r#"
    ///     #include "stochastic.cuh"
    ///     extern "C" __global__ void square(const stoch_float* a, stoch_float* out, int n,
    ///                                       unsigned long long seed) {
    ///         int i = blockIdx.x * blockDim.x + threadIdx.x;
    ///         stoch_init_at(seed, i);
    ///         if (i < n) out[i] = a[i] * a[i];
    ///     }"#;
    /// let gpu = Gpu::new()?;
    /// let f = gpu.user_function("square.cu", src, &[], "square")?;
    /// let a = gpu.upload(&[Sf32::new(3.0); 1000])?;
    /// let mut out = gpu.zeros::<f32>(1000)?;
    /// let (n, seed) = (1000i32, gpu.next_seed());
    /// let mut launch = gpu.launch_builder(&f);
    /// launch.arg(a.raw()).arg(out.raw_mut()).arg(&n).arg(&seed);
    /// // SAFETY: the arguments match `square`'s signature; both buffers hold n values;
    /// // 256-thread blocks; every thread calls stoch_init_at.
    /// unsafe { launch.launch(LaunchConfig::for_num_elems(1000)) }?;
    /// let values = gpu.download(&out)?;
    /// stoch_gpu::record_flags("square", &values);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn launch_builder<'a>(&'a self, f: &'a CudaFunction) -> LaunchArgs<'a> {
        self.stream.launch_builder(f)
    }

    /// Run `work` between two timing events on the stream and return the elapsed device time
    /// in milliseconds.
    ///
    /// # Errors
    ///
    /// The error of `work`, or [`GpuError::Driver`].
    pub fn time_ms(&self, work: impl FnOnce() -> Result<()>) -> Result<f32> {
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.ctx.new_event(flags)?;
        let end = self.ctx.new_event(flags)?;
        start.record(&self.stream)?;
        work()?;
        end.record(&self.stream)?;
        end.synchronize()?;
        Ok(start.elapsed_ms(&end)?)
    }
}

/// Whether the CUDA driver library can be loaded (never panics).
#[must_use]
pub fn driver_available() -> bool {
    // SAFETY: only dlopen()s the candidate driver library names to see whether one exists.
    unsafe { cudarc::driver::sys::is_culib_present() }
}
