//! Constant expressions: integer arithmetic wraps at 64 bits (as PTX specifies), floats are
//! f64; mixing promotes to float.

use crate::ast::Expr;
use crate::diag::Diagnostic;

/// The value of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A 64-bit integer (two's complement).
    Int(i64),
    /// A float, with whether it was an exact `0f` single-precision literal.
    Float(f64),
}

/// Evaluates `e`; names are not constants here.
pub fn eval(e: &Expr) -> Result<Value, Diagnostic> {
    Ok(match e {
        Expr::Int { value, .. } => Value::Int(*value as i64),
        Expr::Float { value, .. } => Value::Float(*value),
        Expr::Symbol(i) | Expr::Generic(i) => {
            return Err(Diagnostic::error(format!("`{}` is not a constant", i.name), i.span));
        }
        Expr::Unary { op, arg, span } => match (op, eval(arg)?) {
            ('-', Value::Int(v)) => Value::Int(v.wrapping_neg()),
            ('-', Value::Float(v)) => Value::Float(-v),
            ('~', Value::Int(v)) => Value::Int(!v),
            ('!', Value::Int(v)) => Value::Int((v == 0) as i64),
            ('!', Value::Float(v)) => Value::Int((v == 0.0) as i64),
            _ => {
                return Err(Diagnostic::error(format!("`{op}` needs an integer operand"), *span));
            }
        },
        Expr::Binary { op, lhs, rhs, span } => binary(op, eval(lhs)?, eval(rhs)?, *span)?,
    })
}

fn binary(op: &str, a: Value, b: Value, span: crate::ast::Span) -> Result<Value, Diagnostic> {
    let zero = || Diagnostic::error("division by zero in a constant expression", span);
    Ok(match (a, b) {
        (Value::Int(a), Value::Int(b)) => Value::Int(match op {
            "+" => a.wrapping_add(b),
            "-" => a.wrapping_sub(b),
            "*" => a.wrapping_mul(b),
            "/" => a.checked_div(b).ok_or_else(zero)?,
            "%" => a.checked_rem(b).ok_or_else(zero)?,
            "&" => a & b,
            "|" => a | b,
            "^" => a ^ b,
            "<<" => a.wrapping_shl(b as u32),
            _ => a.wrapping_shr(b as u32),
        }),
        (a, b) => {
            let (x, y) = (as_f64(a), as_f64(b));
            Value::Float(match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" => x / y,
                _ => {
                    return Err(Diagnostic::error(format!("`{op}` needs integer operands"), span));
                }
            })
        }
    })
}

fn as_f64(v: Value) -> f64 {
    match v {
        Value::Int(i) => i as f64,
        Value::Float(f) => f,
    }
}
