//! Errors of the cubin reader and writer.

/// What is wrong with a cubin (reading) or a module (writing), and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CubinError {
    /// The ELF structure itself is broken (reported by the `object` crate).
    #[error("malformed ELF: {0}")]
    Elf(String),
    /// The file is an ELF file, but not a CUDA one we can read.
    #[error("not a supported cubin: {0}")]
    Unsupported(String),
    /// A section's contents are malformed.
    #[error("section {section}, offset {offset:#x}: {problem}")]
    Section {
        /// Section name (or `#index` when the name is unreadable).
        section: String,
        /// Byte offset inside the section.
        offset: u64,
        /// What is wrong.
        problem: String,
    },
    /// A symbol is malformed or a reference to one cannot be resolved.
    #[error("symbol {symbol}: {problem}")]
    Symbol {
        /// Symbol name or `#index`.
        symbol: String,
        /// What is wrong.
        problem: String,
    },
    /// The module handed to the writer is inconsistent.
    #[error("cannot write module: {0}")]
    Write(String),
}

impl CubinError {
    /// A problem at `offset` in `section`.
    pub fn at(section: &str, offset: u64, problem: impl Into<String>) -> Self {
        CubinError::Section {
            section: section.to_string(),
            offset,
            problem: problem.into(),
        }
    }

    /// A problem with symbol `symbol`.
    pub fn symbol(symbol: impl Into<String>, problem: impl Into<String>) -> Self {
        CubinError::Symbol {
            symbol: symbol.into(),
            problem: problem.into(),
        }
    }
}

impl From<object::read::Error> for CubinError {
    fn from(e: object::read::Error) -> Self {
        CubinError::Elf(e.to_string())
    }
}
