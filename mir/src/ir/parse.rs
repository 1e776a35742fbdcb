//! Reads the MIR text form written by [`super::print`] back into functions. Value and block
//! numbers are kept, so printing a parsed function gives the same text.

use super::entities::{Block, Value};
use super::function::{Function, KernelParam, MemVar, ValueData, ValueDef};
use super::inst::*;
use super::print::{SPECIAL_NAMES, signed_type_name};
use super::types::Type;
use super::typing::{AuxKind, aux_kind};
use cranelift_entity::EntityRef;
use smallvec::SmallVec;

/// A text-form error with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// Line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses every kernel in `text`, each with the device functions that follow it.
pub fn parse_functions(text: &str) -> Result<Vec<Function>, ParseError> {
    let mut out: Vec<Function> = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with("//") {
            continue;
        }
        let mut p = FuncParser::default();
        p.header(line).map_err(|m| err(n, m))?;
        loop {
            let Some((n, line)) = lines.next() else {
                return Err(err(n, "missing `}`".into()));
            };
            let line = line.trim();
            if line == "}" {
                break;
            }
            if !line.is_empty() {
                p.line(line).map_err(|m| err(n, m))?;
            }
        }
        let f = p.finish();
        match out.last_mut() {
            // A device function belongs to the kernel before it.
            Some(k) if f.is_device_function => k.callees.push(f),
            None if f.is_device_function => return Err(err(n, "a device function before any kernel".into())),
            _ => out.push(f),
        }
    }
    Ok(out)
}

/// Parses a text holding exactly one kernel (and its device functions).
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let mut fs = parse_functions(text)?;
    match fs.len() {
        1 => Ok(fs.remove(0)),
        n => Err(err(0, format!("expected one kernel, found {n}"))),
    }
}

fn err(line: usize, message: String) -> ParseError {
    ParseError {
        line: line + 1,
        message,
    }
}

#[derive(Default)]
struct FuncParser {
    func: Function,
    cur: Option<Block>,
    defined: Vec<bool>,
}

fn type_named(s: &str) -> Result<Type, String> {
    Type::from_name(s).ok_or_else(|| format!("unknown type `{s}`"))
}

/// A signed-aware type name (`s32`, `u8`, `f32`) as (type, signed).
fn signed_type(s: &str) -> Result<(Type, bool), String> {
    for ty in Type::ALL {
        for signed in [false, true] {
            if signed_type_name(*ty, signed) == s {
                return Ok((*ty, signed));
            }
        }
    }
    Err(format!("unknown type `{s}`"))
}

fn number<T: TryFrom<u64>>(s: &str) -> Result<T, String> {
    let v = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16)
    } else {
        s.parse::<u64>()
    }
    .map_err(|_| format!("bad number `{s}`"))?;
    T::try_from(v).map_err(|_| format!("number `{s}` out of range"))
}

fn entity_number(s: &str, prefix: &str) -> Result<usize, String> {
    s.strip_prefix(prefix)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("expected {prefix}N, found `{s}`"))
}

/// Splits at top-level commas (not inside parentheses).
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

impl FuncParser {
    fn header(&mut self, line: &str) -> Result<(), String> {
        let rest = match line.strip_prefix("function ") {
            Some(rest) => {
                self.func.is_device_function = true;
                rest
            }
            None => line.strip_prefix("kernel ").ok_or("expected `kernel` or `function`")?,
        };
        let open = rest.find('(').ok_or("expected `(`")?;
        let close = rest.rfind(')').ok_or("expected `)`")?;
        self.func.name = rest[..open].trim().to_string();
        for p in split_top(&rest[open + 1..close]) {
            let (name, layout) = p.split_once(':').ok_or("expected `name: size@offset align N`")?;
            let words: Vec<&str> = layout.split_whitespace().collect();
            let [sizeoff, "align", align] = words[..] else {
                return Err(format!("bad parameter `{p}`"));
            };
            let (size, offset) = sizeoff.split_once('@').ok_or("expected size@offset")?;
            self.func.params.push(KernelParam {
                name: name.trim().to_string(),
                offset: number(offset)?,
                size: number(size)?,
                align: number(align)?,
            });
        }
        let tail: Vec<&str> = rest[close + 1..].split_whitespace().collect();
        let mut i = 0;
        while i < tail.len() && tail[i] != "{" {
            match tail[i] {
                "reqntid" | "maxntid" | "reqnctapercluster" if i + 3 < tail.len() => {
                    let dims = [number(tail[i + 1])?, number(tail[i + 2])?, number(tail[i + 3])?];
                    match tail[i] {
                        "reqntid" => self.func.req_ntid = Some(dims),
                        "maxntid" => self.func.max_ntid = Some(dims),
                        _ => self.func.cluster_dims = Some(dims),
                    }
                    i += 4;
                }
                "maxclusterrank" if i + 1 < tail.len() => {
                    self.func.max_cluster_rank = Some(number(tail[i + 1])?);
                    i += 2;
                }
                "explicitcluster" => {
                    self.func.explicit_cluster = true;
                    i += 1;
                }
                "maxnreg" if i + 1 < tail.len() => {
                    self.func.max_nreg = Some(number(tail[i + 1])?);
                    i += 2;
                }
                other => return Err(format!("unexpected `{other}` in the kernel header")),
            }
        }
        Ok(())
    }

    fn line(&mut self, line: &str) -> Result<(), String> {
        if let Some(v) = line.strip_prefix("var ") {
            return self.var(v);
        }
        if line.starts_with("block") && line.ends_with(':') {
            return self.block_header(&line[..line.len() - 1]);
        }
        self.inst(line)
    }

    fn var(&mut self, text: &str) -> Result<(), String> {
        let w: Vec<&str> = text.split_whitespace().collect();
        if w.len() < 5 || w[3] != "align" {
            return Err(format!("bad variable `{text}`"));
        }
        let name = w[0]
            .strip_prefix('@')
            .and_then(|n| n.strip_suffix(':'))
            .ok_or("expected `@name:`")?;
        let space = SPACES.iter().find(|(_, n)| *n == w[1]).ok_or("unknown space")?.0;
        let mut relocs = Vec::new();
        let mut w = w;
        while w.len() >= 3 && w[w.len() - 3] == "reloc" {
            relocs.insert(0, (number(w[w.len() - 2])?, number(w[w.len() - 1])?));
            w.truncate(w.len() - 3);
        }
        let init = match w.get(5..) {
            Some(["init", hex]) => {
                let hex = hex.strip_prefix("0x").ok_or("init needs 0x")?;
                let bytes = (0..hex.len() / 2)
                    .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|e| e.to_string()))
                    .collect::<Result<Vec<u8>, String>>()?;
                Some(bytes)
            }
            Some([]) | None => None,
            _ => return Err(format!("bad variable `{text}`")),
        };
        self.func.vars.push(MemVar {
            name: name.to_string(),
            space,
            size: number(w[2])?,
            align: number(w[4])?,
            init,
            relocs,
        });
        Ok(())
    }

    fn block(&mut self, n: usize) -> Block {
        while self.func.blocks.len() <= n {
            self.func.blocks.push(Default::default());
        }
        Block::new(n)
    }

    /// The value numbered `n`, creating placeholders up to it.
    fn value(&mut self, n: usize) -> Value {
        while self.func.values.len() <= n {
            self.func.values.push(ValueData {
                ty: Type::I32,
                def: ValueDef::Param(Block::new(0), 0),
            });
            self.defined.push(false);
        }
        Value::new(n)
    }

    fn use_value(&mut self, s: &str) -> Result<Value, String> {
        Ok(self.value(entity_number(s.trim(), "v")?))
    }

    fn define(&mut self, s: &str, data: ValueData) -> Result<Value, String> {
        let v = self.use_value(s)?;
        if self.defined[v.index()] {
            return Err(format!("{v} is defined twice"));
        }
        self.defined[v.index()] = true;
        self.func.values[v] = data;
        Ok(v)
    }

    fn block_header(&mut self, text: &str) -> Result<(), String> {
        let (name, params) = match text.split_once('(') {
            Some((n, p)) => (n, p.strip_suffix(')').ok_or("expected `)`")?),
            None => (text, ""),
        };
        let b = self.block(entity_number(name, "block")?);
        if self.func.layout.contains(&b) {
            return Err(format!("{b} appears twice"));
        }
        self.func.layout.push(b);
        for (i, p) in split_top(params).into_iter().enumerate() {
            let (v, ty) = p.split_once(':').ok_or("expected `vN: type`")?;
            let data = ValueData {
                ty: type_named(ty.trim())?,
                def: ValueDef::Param(b, i as u8),
            };
            let v = self.define(v, data)?;
            self.func.blocks[b].params.push(v);
        }
        self.cur = Some(b);
        Ok(())
    }

    fn inst(&mut self, line: &str) -> Result<(), String> {
        let b = self.cur.ok_or("instruction outside a block")?;
        let (results, rest) = match line.split_once(" = ") {
            Some((r, rest)) => (r.split(',').map(str::trim).collect::<Vec<_>>(), rest),
            None => (Vec::new(), line),
        };
        let (head, operands) = rest.split_once(' ').unwrap_or((rest, ""));
        let mut words: Vec<&str> = head.split('.').collect();
        let op = Opcode::from_name(words.remove(0)).ok_or_else(|| format!("unknown opcode in `{head}`"))?;
        let last = words.pop().ok_or("missing type")?;
        let mut args = split_top(operands);
        let (ty, aux) = self.aux(op, last, &words, &mut args)?;
        let mut values: SmallVec<[Value; 3]> = SmallVec::new();
        let mut offset = 0i64;
        for (i, a) in args.iter().enumerate() {
            let (v, off) = match a.find(['+', '-']) {
                Some(k) if i == 0 && matches!(aux, Aux::Mem(_) | Aux::Atom(_)) => {
                    (&a[..k], a[k..].parse::<i64>().map_err(|_| format!("bad offset `{a}`"))?)
                }
                _ => (*a, 0),
            };
            if i == 0 {
                offset = off;
            }
            values.push(self.use_value(v)?);
        }
        let aux = match aux {
            Aux::Mem(mut m) => {
                m.offset = offset;
                Aux::Mem(m)
            }
            Aux::Atom(mut a) => {
                a.offset = offset;
                Aux::Atom(a)
            }
            other => other,
        };
        let data = InstData {
            op,
            ty,
            args: values,
            aux,
        };
        let types = super::typing::result_types(&data);
        if types.len() != results.len() {
            return Err(format!(
                "`{}` has {} results, {} written",
                op.name(),
                types.len(),
                results.len()
            ));
        }
        let inst = self.func.insts.push(data);
        let mut rs = SmallVec::new();
        for (i, (r, ty)) in results.iter().zip(types).enumerate() {
            let def = ValueDef::Result(inst, i as u8);
            rs.push(self.define(r, ValueData { ty, def })?);
        }
        self.func.results[inst] = rs;
        self.func.blocks[b].insts.push(inst);
        Ok(())
    }

    /// The type and extra data from the modifiers; trailing operands that belong to the
    /// extra data are taken off `args`.
    fn aux(&mut self, op: Opcode, last: &str, mods: &[&str], args: &mut Vec<&str>) -> Result<(Type, Aux), String> {
        let kind = aux_kind(op);
        if kind == AuxKind::Convert {
            let (ty, to_signed) = signed_type(last)?;
            let (from_name, flags) = mods.split_first().ok_or("convert needs a source type")?;
            let (from, from_signed) = signed_type(from_name)?;
            let mut info = ConvertInfo {
                from,
                from_signed,
                to_signed,
                rnd: None,
                sat: false,
                ftz: false,
                relu: false,
            };
            for f in flags {
                match *f {
                    "sat" => info.sat = true,
                    "ftz" => info.ftz = true,
                    "relu" => info.relu = true,
                    r => info.rnd = Some(rounding(r)?),
                }
            }
            return Ok((ty, Aux::Convert(info)));
        }
        let ty = type_named(last)?;
        let no_mods = |aux: Aux| {
            if mods.is_empty() {
                Ok(aux)
            } else {
                Err(format!("unexpected modifiers {mods:?}"))
            }
        };
        let aux = match kind {
            AuxKind::None => no_mods(Aux::None)?,
            AuxKind::Imm => no_mods(Aux::Imm(number(args.pop().ok_or("missing immediate")?)?))?,
            AuxKind::Cond => match mods {
                [c] => Aux::Cond(*CONDS.iter().find(|k| k.name() == *c).ok_or("unknown condition")?),
                _ => return Err("expected one condition".into()),
            },
            AuxKind::Param => {
                let a = args.pop().ok_or("missing param+N")?;
                no_mods(Aux::Param(number(a.strip_prefix("param+").ok_or("expected param+N")?)?))?
            }
            AuxKind::Special => no_mods(Aux::Special(special(args.pop().ok_or("missing register")?)?))?,
            AuxKind::Var => {
                let a = args.pop().ok_or("missing @var")?;
                let name = a.strip_prefix('@').ok_or("expected @var")?;
                let i = self
                    .func
                    .vars
                    .iter()
                    .position(|v| v.name == name)
                    .ok_or("unknown variable")?;
                no_mods(Aux::Var(i as u32))?
            }
            AuxKind::Mem => Aux::Mem(mem_info(mods)?),
            AuxKind::Atom => match mods {
                [sp, o, rest @ ..] if rest.is_empty() || rest == ["red"] => Aux::Atom(AtomInfo {
                    op: ATOM_OPS.iter().find(|(_, n)| n == o).ok_or("unknown atomic op")?.0,
                    space: space(sp)?,
                    offset: 0,
                    red: !rest.is_empty(),
                }),
                _ => return Err("expected .space.op or .space.op.red".into()),
            },
            AuxKind::Space => match mods {
                [sp] => Aux::Space(space(sp)?),
                _ => return Err("expected one space".into()),
            },
            AuxKind::Branch => {
                let n = if op == Opcode::Jump { 1 } else { 2 };
                if args.len() < n {
                    return Err("missing branch targets".into());
                }
                let calls = args.split_off(args.len() - n);
                let mut targets = SmallVec::new();
                for c in calls {
                    targets.push(self.block_call(c)?);
                }
                no_mods(Aux::Branch(targets))?
            }
            AuxKind::Float | AuxKind::FloatRounded => Aux::Float(float_mode(mods)?),
            AuxKind::Convert => unreachable!("handled above"),
        };
        Ok((ty, aux))
    }

    fn block_call(&mut self, text: &str) -> Result<BlockCall, String> {
        let (name, args) = match text.split_once('(') {
            Some((n, a)) => (n, a.strip_suffix(')').ok_or("expected `)`")?),
            None => (text, ""),
        };
        let block = self.block(entity_number(name.trim(), "block")?);
        let mut out = SmallVec::new();
        for a in split_top(args) {
            out.push(self.use_value(a)?);
        }
        Ok(BlockCall { block, args: out })
    }

    fn finish(self) -> Function {
        self.func
    }
}

fn rounding(s: &str) -> Result<Rounding, String> {
    ROUNDINGS
        .iter()
        .copied()
        .find(|r| r.name() == s)
        .ok_or_else(|| format!("unknown modifier `{s}`"))
}

fn space(s: &str) -> Result<Space, String> {
    SPACES
        .iter()
        .find(|(_, n)| *n == s)
        .map(|(sp, _)| *sp)
        .ok_or_else(|| format!("unknown space `{s}`"))
}

fn special(s: &str) -> Result<SpecialReg, String> {
    let name = s.strip_prefix('%').ok_or("expected %register")?;
    if let Some((base, dim)) = name.split_once('.') {
        let d = ["x", "y", "z"].iter().position(|x| *x == dim).ok_or("bad dimension")? as u8;
        return Ok(match base {
            "tid" => SpecialReg::Tid(d),
            "ntid" => SpecialReg::Ntid(d),
            "ctaid" => SpecialReg::Ctaid(d),
            "nctaid" => SpecialReg::Nctaid(d),
            "clusterid" => SpecialReg::ClusterId(d),
            "nclusterid" => SpecialReg::NClusterId(d),
            "cluster_ctaid" => SpecialReg::ClusterCtaId(d),
            "cluster_nctaid" => SpecialReg::ClusterNctaId(d),
            _ => return Err(format!("unknown register `{s}`")),
        });
    }
    SPECIAL_NAMES
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(r, _)| *r)
        .ok_or_else(|| format!("unknown register `{s}`"))
}

fn mem_info(mods: &[&str]) -> Result<MemInfo, String> {
    let (sp, flags) = mods.split_first().ok_or("expected a space")?;
    let mut m = MemInfo {
        space: space(sp)?,
        offset: 0,
        vector: 1,
        non_coherent: false,
        volatile: false,
        hint: CacheHint::default(),
    };
    for f in flags {
        if let Some((e, _)) = EVICT_NAMES.iter().find(|(_, n)| n == f) {
            m.hint.evict = *e;
            continue;
        }
        if let Some((p, _)) = L2_PREFETCH_NAMES.iter().find(|(_, n)| f.strip_prefix("L2_") == Some(n)) {
            m.hint.l2_prefetch = *p;
            continue;
        }
        match *f {
            "policy" => m.hint.policy = true,
            "v2" => m.vector = 2,
            "v4" => m.vector = 4,
            "nc" => m.non_coherent = true,
            "volatile" => m.volatile = true,
            other => return Err(format!("unknown memory modifier `{other}`")),
        }
    }
    Ok(m)
}

fn float_mode(mods: &[&str]) -> Result<FloatMode, String> {
    let mut m = FloatMode::default();
    for f in mods {
        match *f {
            "ftz" => m.ftz = true,
            "sat" => m.sat = true,
            "relu" => m.relu = true,
            "nan" => m.nan = true,
            "xorsign" => m.xorsign = true,
            r => m.rnd = Some(rounding(r)?),
        }
    }
    Ok(m)
}
