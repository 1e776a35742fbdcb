//! The device the hardware check runs kernels on, behind a trait: [`crate::hwcheck::cuda`]
//! implements it over NVIDIA's driver; tests implement it over the simulator.

use crate::launch::LaunchSpec;
use crate::npy::Array;
use serde::Serialize;
use std::collections::BTreeMap;

/// What the check needs to know about the device.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GpuInfo {
    /// The device's name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Compute capability as major * 10 + minor (90 for an H100).
    pub sm: u32,
    /// Number of SMs.
    pub sms: u32,
    /// The SM clock in kHz the driver reports (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`).
    pub clock_khz: u32,
    /// Where the device was reached (the driver library's path).
    pub via: String,
}

/// What one kernel did on the device.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuRun {
    /// Every buffer of the launch spec after the first launch.
    pub buffers: BTreeMap<String, Array>,
    /// Measured cycles of one launch, when timing was asked for.
    pub cycles: Option<f64>,
}

/// A device that runs cubins.
pub trait Gpu {
    /// The device.
    fn info(&self) -> &GpuInfo;

    /// Loads `cubin`, sets up the buffers and symbols of `spec`, launches its kernel once and
    /// reads every buffer back; then, when `repeat` > 0, times `repeat` more launches and
    /// gives the cycles of one. Everything allocated is released again, also on failure.
    fn launch(&mut self, cubin: &[u8], spec: &LaunchSpec, repeat: u32) -> Result<GpuRun, String>;
}
