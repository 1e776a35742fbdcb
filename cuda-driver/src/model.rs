//! The simulated GPU as the driver reports it: which simulator configuration runs the
//! kernels, its name, compute capability, clocks and memory, and every device attribute.
//!
//! `PTXC_CUDA_DEVICE` picks the configuration (`t4`, the default, `2080ti` or `small`);
//! `PTXC_CUDA_ENGINE` the engine (`timed`, the default, or `functional`); `PTXC_CUDA_ARCH` the
//! architecture (`sm_75`, the default; any architecture the simulator models), which sets the
//! compute capability, the target of JIT compilation and the SASS picked from fat binaries. The figures not in
//! the simulator's configuration (clocks, bus width, L2 size, memory size) are the published
//! specifications of the boards (NVIDIA's T4 and RTX 2080 Ti data sheets).

use ptxc_sass::isa::Arch;
use ptxc_sim::{Config, Engine};

/// The device the library reports and simulates.
#[derive(Clone, Debug)]
pub struct DeviceModel {
    /// Simulator configuration (SM count and per-SM limits).
    pub config: Config,
    /// The engine that runs launches.
    pub engine: Engine,
    /// The architecture whose SASS the device runs.
    pub arch: Arch,
    /// Name reported by `cuDeviceGetName`.
    pub name: String,
    /// The board whose figures the model reports.
    pub board: &'static str,
    /// Boost clock in kHz (`CLOCK_RATE`); simulated cycles become time at this rate.
    pub clock_khz: i32,
    /// Memory clock in kHz.
    pub memory_clock_khz: i32,
    /// Memory bus width in bits.
    pub bus_width: i32,
    /// L2 cache bytes.
    pub l2_bytes: i32,
    /// Global memory bytes reported (`cuDeviceTotalMem`, `cuMemGetInfo`).
    pub total_memory: u64,
}

impl DeviceModel {
    /// The model chosen by `PTXC_CUDA_DEVICE` and `PTXC_CUDA_ENGINE` (with a warning on
    /// stderr for a value it does not know, then the default).
    pub fn from_env() -> DeviceModel {
        let device = std::env::var("PTXC_CUDA_DEVICE").unwrap_or_default();
        let mut m = DeviceModel::named(&device).unwrap_or_else(|| {
            if !device.is_empty() {
                eprintln!("ptxc libcuda: PTXC_CUDA_DEVICE={device} is not t4, 2080ti or small; using t4");
            }
            DeviceModel::named("t4").expect("t4 is a model")
        });
        if let Ok(name) = std::env::var("PTXC_CUDA_ARCH") {
            match Arch::from_name(&name).filter(|a| ptxc_sim::module::MODELLED.contains(a)) {
                Some(a) => m.set_arch(a),
                None => eprintln!(
                    "ptxc libcuda: PTXC_CUDA_ARCH={name} is not an architecture the simulator models ({}); using {}",
                    ptxc_sim::module::MODELLED
                        .iter()
                        .map(|a| a.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                    m.arch.name()
                ),
            }
        }
        match std::env::var("PTXC_CUDA_ENGINE").as_deref() {
            Ok("functional") => m.engine = Engine::Functional,
            Ok("timed") | Err(_) => {}
            Ok(other) => eprintln!("ptxc libcuda: PTXC_CUDA_ENGINE={other} is not timed or functional; using timed"),
        }
        m
    }

    /// The model called `name` (`t4`, `2080ti`, `small`).
    pub fn named(name: &str) -> Option<DeviceModel> {
        let config = Config::by_name(name)?;
        let arch = config.arch;
        let (board, clock_khz, memory_clock_khz, bus_width, l2_bytes, gib) = board_figures(config.name);
        Some(DeviceModel {
            name: format!("ptxc simulated {board} ({}, {} SMs)", arch.name(), config.sms),
            board,
            config,
            engine: Engine::Timed,
            arch,
            clock_khz,
            memory_clock_khz,
            bus_width,
            l2_bytes,
            total_memory: gib << 30,
        })
    }

    /// Runs architecture `arch` (the name says so): on the simulator's first device model of
    /// that architecture when the current one is of another.
    pub fn set_arch(&mut self, arch: Arch) {
        if self.config.arch != arch
            && let Some(config) = Config::for_arch(arch)
        {
            let (board, clock_khz, memory_clock_khz, bus_width, l2_bytes, gib) = board_figures(config.name);
            *self = DeviceModel {
                config,
                board,
                clock_khz,
                memory_clock_khz,
                bus_width,
                l2_bytes,
                total_memory: gib << 30,
                ..self.clone()
            };
        }
        self.arch = arch;
        self.name = format!(
            "ptxc simulated {} ({}, {} SMs)",
            self.board,
            arch.name(),
            self.config.sms
        );
    }

    /// Compute capability (major, minor).
    pub fn compute_capability(&self) -> (i32, i32) {
        let sm = self.arch.sm() as i32;
        (sm / 10, sm % 10)
    }

    /// Shared memory a block may use without opting in (`MAX_SHARED_MEMORY_PER_BLOCK`).
    pub fn shared_per_block(&self) -> i32 {
        (self.config.shared_per_sm as i32).min(48 * 1024)
    }

    /// The value of device attribute `attr` (`CUdevice_attribute`), `None` if the library
    /// does not know the attribute.
    pub fn attribute(&self, attr: u32) -> Option<i32> {
        let c = &self.config;
        let (major, minor) = self.compute_capability();
        Some(match attr {
            1..=3 => 1024,                         // threads per block, block x and y
            4 => 64,                               // block z
            5 => i32::MAX,                         // grid x
            6 | 7 => 65535,                        // grid y and z
            8 => self.shared_per_block(),          // shared memory per block
            9 => 65536,                            // constant memory
            10 => 32,                              // warp size
            11 => i32::MAX,                        // max pitch
            12 => c.regs_per_sm.min(65536) as i32, // registers per block
            13 => self.clock_khz,                  // clock rate
            14 => 512,                             // texture alignment
            15 => 1,                               // copy and kernel overlap
            16 => c.sms as i32,                    // multiprocessors
            17 | 18 => 0,                          // kernel timeout, integrated
            19 => 0,                               // cannot map host memory: the simulator's memory is its own
            20 => 0,                               // compute mode: default
            21..=29 | 42..=49 | 52..=74 | 77 => 0, // textures and surfaces: not supported
            30 => 512,                             // surface alignment
            31 => 1,                               // concurrent kernels
            32 => 0,                               // ECC
            33..=34 | 50 => 0,                     // PCI bus, device, domain
            35 => 0,                               // TCC driver
            36 => self.memory_clock_khz,
            37 => self.bus_width,
            38 => self.l2_bytes,
            39 => c.threads_per_sm as i32, // threads per multiprocessor
            40 => 2,                       // async engines
            41 => 1,                       // unified addressing
            51 => 32,                      // texture pitch alignment
            75 => major,
            76 => minor,
            78 => 0,                      // stream priorities
            79 | 80 => 1,                 // global and local L1
            81 => c.shared_per_sm as i32, // shared memory per multiprocessor
            82 => c.regs_per_sm as i32,   // registers per multiprocessor
            83 => 0,                      // managed memory: not supported
            84 | 85 => 0,                 // multi-GPU board
            86 => 0,                      // host native atomics
            87 => 32,                     // single to double performance ratio
            88 | 89 => 0,                 // pageable access, concurrent managed
            90 => 1,                      // compute preemption
            91 => 0,                      // host pointer for registered memory
            92..=94 => 0,                 // stream memory operations v1
            95 | 96 => 0,                 // cooperative launches
            97 => c.shared_per_sm as i32, // shared memory per block, opt-in
            98 => 0,
            99 => 1, // host register supported
            100 | 101 => 0,
            102..=105 => 0,              // virtual memory, handle types
            106 => c.ctas_per_sm as i32, // blocks per multiprocessor
            107..=110 => 0,
            111 => 0,       // reserved shared memory per block
            112..=119 => 0, // sparse arrays, pools, RDMA
            120 => 0,       // cluster launch
            121..=159 => 0,
            _ => return None,
        })
    }
}

/// The published figures of the board a device model stands for: name, boost clock (kHz),
/// memory clock (kHz), memory bus width (bits), L2 bytes and memory GiB (NVIDIA's data sheets).
fn board_figures(model: &str) -> (&'static str, i32, i32, i32, i32, u64) {
    match model {
        "RTX 2080 Ti" => ("GeForce RTX 2080 Ti", 1_545_000, 7_000_000, 352, 5_767_168, 11),
        "A100" => ("A100-SXM4-40GB", 1_410_000, 1_215_000, 5120, 40 << 20, 40),
        "RTX 3090" => ("GeForce RTX 3090", 1_695_000, 9_751_000, 384, 6 << 20, 24),
        "RTX 4090" => ("GeForce RTX 4090", 2_520_000, 10_501_000, 384, 72 << 20, 24),
        "L4" => ("L4", 2_040_000, 6_251_000, 192, 48 << 20, 24),
        _ => ("Tesla T4", 1_590_000, 5_001_000, 256, 4 << 20, 15),
    }
}
