//! Error paths that need no GPU: a missing driver, device or NVRTC is an error, never a panic.

mod common;

use stoch_core::{Flags, Instability, Sf32};
use stoch_gpu::{record_flags, FlagCounts, Gpu, GpuError};

#[test]
fn gpu_new_reports_why_instead_of_panicking() {
    let r = std::panic::catch_unwind(Gpu::new);
    let r = r.expect("Gpu::new must never panic");
    match r {
        Ok(gpu) => eprintln!("GPU present: {} (sm_{})", gpu.name(), gpu.arch()),
        Err(e) => {
            assert!(
                matches!(
                    e,
                    GpuError::NoDriver | GpuError::NoDevice(_) | GpuError::NoNvrtc
                ),
                "unexpected error kind: {e:?}"
            );
            let msg = e.to_string();
            assert!(!msg.is_empty());
            eprintln!("no GPU here, as expected: {msg}");
            assert!(
                std::env::var("STOCH_REQUIRE_GPU").map_or(true, |v| v != "1"),
                "STOCH_REQUIRE_GPU=1 but Gpu::new failed: {msg}"
            );
        }
    }
}

#[test]
fn driver_probe_is_a_plain_bool() {
    let present = std::panic::catch_unwind(stoch_gpu::driver_available).expect("no panic");
    if !present {
        assert!(matches!(Gpu::new(), Err(GpuError::NoDriver)));
    }
}

#[test]
fn nvrtc_probe_never_panics() {
    let ok = common::nvrtc_or_skip("nvrtc_probe_never_panics");
    assert_eq!(ok, stoch_gpu::nvrtc::available());
    if !ok {
        let e = stoch_gpu::nvrtc::compile("k.cu", "", stoch_gpu::nvrtc::Target::Virtual(90), &[])
            .unwrap_err();
        assert!(matches!(e, GpuError::NoNvrtc), "{e:?}");
        assert!(e.to_string().contains("nvidia-cuda-nvrtc"));
    }
}

#[test]
fn flags_are_counted_and_merged_into_the_report() {
    stoch_core::reset();
    let div = Flags::from_bits(Instability::Division.bit());
    let canc =
        Flags::from_bits(Instability::Cancellation.bit() | Instability::Multiplication.bit());
    let values = vec![
        Sf32::from_parts([1.0; 3], div),
        Sf32::from_parts([2.0; 3], canc),
        Sf32::from_parts([3.0; 3], canc),
        Sf32::new(4.0),
    ];
    let counts = record_flags("test_kernel", &values);
    assert_eq!(counts, FlagCounts::of(&values));
    assert_eq!((counts.values, counts.flagged), (4, 3));
    assert_eq!(counts.get(Instability::Division), 1);
    assert_eq!(counts.get(Instability::Cancellation), 2);
    assert_eq!(counts.get(Instability::Multiplication), 2);
    assert_eq!(counts.total(), 5);
    let report = stoch_core::report();
    assert_eq!(report.gpu_count(Instability::Division), 1);
    assert_eq!(report.gpu_count(Instability::Cancellation), 2);
    assert_eq!(report.gpu_count(Instability::Multiplication), 2);
    assert!(report.gpu().iter().all(|g| g.kernel == "test_kernel"));
    assert_eq!(
        report.total(),
        0,
        "GPU counts are kept apart from the CPU's"
    );
    assert!(
        counts.to_string().contains("3 of 4 values flagged"),
        "{counts}"
    );
}

#[test]
fn validation_summary_on_host_values() {
    use stoch_gpu::validate::compare;
    let gpu = vec![
        Sf32::new(1.0),
        Sf32::from_samples([1.01, 1.0101, 1.0099]),
        Sf32::from_samples([1e-8, -1e-8, 2e-8]),
    ];
    let cpu = vec![
        Sf32::new(1.0),
        Sf32::from_samples([1.0, 1.00001, 0.99999]),
        Sf32::from_samples([-1e-8, 1e-8, 0.0]),
    ];
    let v = compare(&gpu, &cpu).unwrap();
    let s = &v.summary;
    assert_eq!(s.len, 3);
    assert_eq!(s.max_digits, 7);
    assert_eq!(v.elements[0].common_digits, 7);
    assert_eq!(v.elements[2].common_digits, 7, "two computed zeros agree");
    assert_eq!(s.gpu_histogram.iter().sum::<usize>(), 3);
    assert_eq!(s.worst[0], 1, "the element that differs most comes first");
    assert!(v.elements[1].gpu_digits < v.elements[1].cpu_digits);
    assert_eq!(v.elements[1].common_digits, 2);
    assert_eq!(s.inconsistent, 1);
    let text = v.to_string();
    assert!(
        text.contains("3 elements") && text.contains("worst elements"),
        "{text}"
    );
    assert!(matches!(
        compare(&gpu, &cpu[..2]),
        Err(GpuError::LengthMismatch { left: 3, right: 2 })
    ));
}
