//! Applying recorded [`LayoutHints`]: sections and symbols named in the hints come in the
//! recorded order, the others after them in canonical order. Up to sm_89 local symbols stay
//! before non-local ones, as ELF requires; sm_90 files put local section symbols last.

use std::collections::HashMap;

use super::plan::{SectionPlan, SymbolPlan};
use crate::cubin::model::LayoutHints;

fn positions(names: &[String]) -> HashMap<&str, usize> {
    let mut map = HashMap::new();
    for (i, n) in names.iter().enumerate() {
        map.entry(n.as_str()).or_insert(i);
    }
    map
}

/// Reorders `sections` as recorded in `hints`.
pub fn order_sections(sections: &mut [SectionPlan], hints: &LayoutHints) {
    let pos = positions(&hints.section_order);
    sections.sort_by_key(|s| pos.get(s.name.as_str()).copied().unwrap_or(usize::MAX));
}

/// Reorders `symbols` as recorded in `hints`, locals first if `locals_first`.
pub fn order_symbols(symbols: &mut [SymbolPlan], hints: &LayoutHints, locals_first: bool) {
    let pos = positions(&hints.symbol_order);
    symbols.sort_by_key(|s| {
        let local_rank = locals_first && !s.is_local();
        (local_rank, pos.get(s.name.as_str()).copied().unwrap_or(usize::MAX))
    });
}
