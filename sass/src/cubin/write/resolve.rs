//! Name-to-index maps once the section and symbol orders are final.

use std::collections::HashMap;

use super::plan::{SectionPlan, SymbolPlan};
use crate::cubin::error::CubinError;

/// Looks up section and symbol indices by name.
pub struct Resolver {
    sections: HashMap<String, u32>,
    symbols: HashMap<String, u32>,
}

impl Resolver {
    /// Indices for `sections` (index 0 is the null section) and `symbols` (index 0 is null).
    /// Where names repeat, the first one wins.
    pub fn new(sections: &[SectionPlan], symbols: &[SymbolPlan]) -> Self {
        let mut section_map = HashMap::new();
        for (i, s) in sections.iter().enumerate() {
            section_map.entry(s.name.clone()).or_insert(i as u32 + 1);
        }
        let mut symbol_map = HashMap::new();
        for (i, s) in symbols.iter().enumerate() {
            symbol_map.entry(s.name.clone()).or_insert(i as u32 + 1);
        }
        Resolver {
            sections: section_map,
            symbols: symbol_map,
        }
    }

    /// Index of section `name`.
    pub fn section(&self, name: &str) -> Result<u32, CubinError> {
        self.sections
            .get(name)
            .copied()
            .ok_or_else(|| CubinError::Write(format!("no section named {name}")))
    }

    /// Index of symbol `name`.
    pub fn symbol(&self, name: &str) -> Result<u32, CubinError> {
        self.symbols
            .get(name)
            .copied()
            .ok_or_else(|| CubinError::Write(format!("no symbol named {name}")))
    }
}
