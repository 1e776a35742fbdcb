//! Statistics of measured against simulated cycles: per-kernel ratio, geometric mean of the
//! ratios, mean absolute error and Spearman's rank correlation (ties get their mean rank).

use serde::Serialize;

/// The agreement of measured (`gpu`) with simulated (`sim`) cycles over a set of kernels.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Agreement {
    /// Kernels compared.
    pub kernels: usize,
    /// Geometric mean of measured / simulated over the kernels where both are positive.
    pub ratio_geomean: Option<f64>,
    /// Mean of |measured − simulated| in cycles.
    pub mean_abs_error: Option<f64>,
    /// Spearman's rank correlation (needs two kernels and cycles that are not all equal).
    pub spearman: Option<f64>,
}

/// Measured / simulated, when both are positive.
pub fn ratio(gpu: f64, sim: f64) -> Option<f64> {
    (gpu > 0.0 && sim > 0.0 && gpu.is_finite() && sim.is_finite()).then(|| gpu / sim)
}

/// Ratio, mean absolute error and rank correlation of the pairs (measured, simulated).
pub fn agreement(pairs: &[(f64, f64)]) -> Agreement {
    let ratios: Vec<f64> = pairs.iter().filter_map(|&(g, s)| ratio(g, s)).collect();
    let ratio_geomean =
        (!ratios.is_empty()).then(|| (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp());
    let mean_abs_error =
        (!pairs.is_empty()).then(|| pairs.iter().map(|(g, s)| (g - s).abs()).sum::<f64>() / pairs.len() as f64);
    let gpu: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let sim: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    Agreement {
        kernels: pairs.len(),
        ratio_geomean,
        mean_abs_error,
        spearman: spearman(&gpu, &sim),
    }
}

/// The ranks of `v` from 1, tied values sharing the mean of their ranks; NaNs rank last.
pub fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = mean;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation of `a` and `b` (Pearson's correlation of their ranks); `None`
/// for fewer than two values, different lengths, or a side whose values are all equal.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 2 {
        return None;
    }
    pearson(&ranks(a), &ranks(b))
}

/// Pearson's correlation; `None` when a side has no variance.
fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    (va > 0.0 && vb > 0.0).then(|| (cov / (va * vb).sqrt()).clamp(-1.0, 1.0))
}
