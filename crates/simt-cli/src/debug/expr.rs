//! The expressions of `print` and of conditional breakpoints (`break 14 if R3 == 7`).
//!
//! An expression is evaluated once per lane: registers (`R3`), predicates (`P0`, 1 or 0),
//! thread coordinates (`tid.x`, `ctaid.y`, `ntid.z`, `nctaid.x`, and CUDA's `threadIdx.x`,
//! `blockIdx.y`, `blockDim.z`, `gridDim.x`; `tid` alone is `tid.x`, `laneid`, `warpid`),
//! buffer elements (`mem out[tid.x]` or `out[tid.x]`, the index evaluated per lane too),
//! numbers (`7`, `0xff`, `1.5`) and C's operators with C's precedence. Integers are 64-bit
//! (a register reads as a signed 32-bit value); an operation with a float operand is a float
//! one; comparisons and `&&`, `||`, `!` give 1 or 0, and `&&`, `||` skip their right side in
//! the lanes their left side decides.

use simt_io::Element;

/// Most tokens in one expression: evaluation recurses once per operator, so this bounds its depth.
const MAX_TOKENS: usize = 256;

/// What an expression can name.
pub struct Names<'n> {
    /// Registers per thread (`R0 .. R{regs-1}`).
    pub regs: u32,
    /// The pointer parameters' buffers.
    pub buffers: &'n [String],
    /// What to say of a name that is not one of them.
    pub unknown_buffer: &'n dyn Fn(&str) -> String,
}

/// A thread coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// The thread's index in the block, by dimension (0 is x).
    Tid(usize),
    /// The block's index in the grid.
    Ctaid(usize),
    /// The block's size.
    Ntid(usize),
    /// The grid's size.
    Nctaid(usize),
    /// The lane in the warp.
    Laneid,
    /// The warp in the block.
    Warpid,
}

/// Where an expression's names get their values, per lane.
pub trait Scope {
    /// Register `r` of `lane`.
    fn register(&self, r: u8, lane: usize) -> Result<u32, String>;
    /// Predicate `p` of `lane`.
    fn predicate(&self, p: u8, lane: usize) -> Result<bool, String>;
    /// A thread coordinate of `lane`.
    fn special(&self, s: Special, lane: usize) -> u32;
    /// Element `index` of the buffer of pointer parameter `buffer`.
    fn element(&self, buffer: &str, index: i64) -> Result<Element, String>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Or,
    And,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i64),
    Float(f64),
    Reg(u8),
    Pred(u8),
    Special(Special),
    Element(String, Box<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    BitNot(Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Int(i64),
    Float(f64),
    Name(String),
    Punct(&'static str),
}

/// Operators, longest first so that `<=` is not read as `<`.
const PUNCTS: &[&str] = &["==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "(", ")", "[", "]"];

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        if out.len() == MAX_TOKENS {
            return Err(format!("the expression is longer than {MAX_TOKENS} tokens; split it"));
        }
        let c = rest.chars().next().unwrap_or(' ');
        let len = if c.is_ascii_digit() {
            let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.')).unwrap_or(rest.len());
            out.push(number(&rest[..len])?);
            len
        } else if c.is_ascii_alphabetic() || c == '_' {
            let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
            out.push(Token::Name(rest[..len].to_string()));
            len
        } else if let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            out.push(Token::Punct(p));
            p.len()
        } else {
            return Err(format!("`{c}` cannot start anything in an expression"));
        };
        rest = rest[len..].trim_start();
    }
    Ok(out)
}

fn number(text: &str) -> Result<Token, String> {
    let bad = || format!("`{text}` is not a number (write 7, 0x1f or 1.5)");
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        // Hex spells bits: 0xffffffff is a register's -1, as it prints under `print/x`.
        let bits = u64::from_str_radix(hex, 16).map_err(|_| bad())?;
        return Ok(Token::Int(if bits <= u64::from(u32::MAX) { i64::from(bits as u32 as i32) } else { bits as i64 }));
    }
    if let Ok(v) = text.parse::<i64>() {
        return Ok(Token::Int(v));
    }
    text.parse::<f64>().map(Token::Float).map_err(|_| bad())
}

/// Parses `text`; every register, predicate and buffer it names must exist.
pub fn parse(text: &str, names: &Names<'_>) -> Result<Expr, String> {
    let tokens = tokens(text)?;
    if tokens.is_empty() {
        return Err("an expression is missing (e.g. R3, P0, out[tid.x], R3 == 7)".into());
    }
    let mut parser = Parser { tokens, at: 0, names };
    let expr = parser.binary(0)?;
    match parser.tokens.get(parser.at) {
        None => Ok(expr),
        Some(t) => Err(format!("unexpected `{}` after a whole expression", show(t))),
    }
}

fn show(token: &Token) -> String {
    match token {
        Token::Int(v) => v.to_string(),
        Token::Float(v) => v.to_string(),
        Token::Name(n) => n.clone(),
        Token::Punct(p) => (*p).to_string(),
    }
}

struct Parser<'n> {
    tokens: Vec<Token>,
    at: usize,
    names: &'n Names<'n>,
}

/// Binary operators from the loosest: each level binds tighter than the one before.
const LEVELS: &[&[(&str, Op)]] = &[
    &[("||", Op::Or)],
    &[("&&", Op::And)],
    &[("|", Op::BitOr)],
    &[("^", Op::BitXor)],
    &[("&", Op::BitAnd)],
    &[("==", Op::Eq), ("!=", Op::Ne)],
    &[("<", Op::Lt), ("<=", Op::Le), (">", Op::Gt), (">=", Op::Ge)],
    &[("<<", Op::Shl), (">>", Op::Shr)],
    &[("+", Op::Add), ("-", Op::Sub)],
    &[("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)],
];

impl Parser<'_> {
    fn peek_punct(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Token::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn expect(&mut self, punct: &str) -> Result<(), String> {
        match self.tokens.get(self.at) {
            Some(Token::Punct(p)) if *p == punct => {
                self.at += 1;
                Ok(())
            }
            Some(t) => Err(format!("expected `{punct}`, found `{}`", show(t))),
            None => Err(format!("expected `{punct}` at the end")),
        }
    }

    fn binary(&mut self, level: usize) -> Result<Expr, String> {
        let Some(ops) = LEVELS.get(level) else { return self.unary() };
        let mut left = self.binary(level + 1)?;
        while let Some(&(_, op)) = self.peek_punct().and_then(|p| ops.iter().find(|(s, _)| *s == p)) {
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        let wrap: fn(Box<Expr>) -> Expr = match self.peek_punct() {
            Some("-") => Expr::Neg,
            Some("!") => Expr::Not,
            Some("~") => Expr::BitNot,
            _ => return self.atom(),
        };
        self.at += 1;
        Ok(wrap(Box::new(self.unary()?)))
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let Some(token) = self.tokens.get(self.at).cloned() else { return Err("the expression ends where a value should be".into()) };
        self.at += 1;
        match token {
            Token::Int(v) => Ok(Expr::Int(v)),
            Token::Float(v) => Ok(Expr::Float(v)),
            Token::Punct("(") => {
                let inner = self.binary(0)?;
                self.expect(")")?;
                Ok(inner)
            }
            Token::Punct(p) => Err(format!("`{p}` where a value should be")),
            Token::Name(name) if name == "mem" => match self.tokens.get(self.at).cloned() {
                Some(Token::Name(buffer)) => {
                    self.at += 1;
                    self.element(buffer)
                }
                _ => Err("write `mem NAME[INDEX]`".into()),
            },
            Token::Name(name) if self.peek_punct() == Some("[") => self.element(name),
            Token::Name(name) => self.name(&name),
        }
    }

    fn element(&mut self, buffer: String) -> Result<Expr, String> {
        if !self.names.buffers.contains(&buffer) {
            return Err((self.names.unknown_buffer)(&buffer));
        }
        self.expect("[")?;
        let index = self.binary(0)?;
        self.expect("]")?;
        Ok(Expr::Element(buffer, Box::new(index)))
    }

    fn name(&self, name: &str) -> Result<Expr, String> {
        let regs = self.names.regs;
        let number = |prefix: char| name.strip_prefix(prefix).or_else(|| name.strip_prefix(prefix.to_ascii_lowercase())).and_then(|n| n.parse::<u32>().ok());
        if let Some(r) = number('R') {
            return match u8::try_from(r) {
                Ok(r) if u32::from(r) < regs => Ok(Expr::Reg(r)),
                _ if regs == 0 => Err(format!("`{name}` is not a register: the kernel uses none")),
                _ => Err(format!("`{name}` is not a register of the kernel (it uses R0 .. R{})", regs - 1)),
            };
        }
        if let Some(p) = number('P') {
            return match u8::try_from(p) {
                Ok(p) if p < simt_isa::PT => Ok(Expr::Pred(p)),
                _ => Err(format!("`{name}` is not a predicate (they are P0 .. P{})", simt_isa::PT - 1)),
            };
        }
        let (base, dim) = match name.split_once('.') {
            Some((base, d)) => (base, ["x", "y", "z"].iter().position(|x| *x == d)),
            None => (name, Some(0)),
        };
        let special = match (base, dim) {
            ("laneid", _) if base == name => Special::Laneid,
            ("warpid", _) if base == name => Special::Warpid,
            ("tid" | "threadIdx", Some(d)) => Special::Tid(d),
            ("ctaid" | "blockIdx", Some(d)) => Special::Ctaid(d),
            ("ntid" | "blockDim", Some(d)) => Special::Ntid(d),
            ("nctaid" | "gridDim", Some(d)) => Special::Nctaid(d),
            _ => {
                return Err(format!(
                    "`{name}` is not something `print` knows: registers R0 .., predicates P0 .., tid.x, ctaid.x, ntid.x, nctaid.x, laneid, warpid, or a buffer element NAME[INDEX]"
                ));
            }
        };
        Ok(Expr::Special(special))
    }
}

impl Expr {
    /// Whether the value is the same in every lane (it names no register, predicate or coordinate).
    pub fn is_uniform(&self) -> bool {
        match self {
            Expr::Int(_) | Expr::Float(_) => true,
            Expr::Reg(_) | Expr::Pred(_) | Expr::Special(_) => false,
            Expr::Element(_, e) | Expr::Neg(e) | Expr::Not(e) | Expr::BitNot(e) => e.is_uniform(),
            Expr::Binary(_, a, b) => a.is_uniform() && b.is_uniform(),
        }
    }

    /// The value in `lane`.
    pub fn eval(&self, scope: &dyn Scope, lane: usize) -> Result<Element, String> {
        Ok(match self {
            Expr::Int(v) => Element::Int(*v),
            Expr::Float(v) => Element::F64(*v),
            Expr::Reg(r) => Element::Int(i64::from(scope.register(*r, lane)? as i32)),
            Expr::Pred(p) => Element::Int(i64::from(scope.predicate(*p, lane)?)),
            Expr::Special(s) => Element::Int(i64::from(scope.special(*s, lane))),
            Expr::Element(buffer, index) => match index.eval(scope, lane)? {
                Element::Int(i) => scope.element(buffer, i)?,
                _ => return Err(format!("the index into `{buffer}` is not a whole number")),
            },
            Expr::Neg(e) => match e.eval(scope, lane)? {
                Element::Int(v) => Element::Int(v.wrapping_neg()),
                // The debugger's integers are 64-bit two's complement, as C's on a u64 would wrap.
                Element::U64(v) => Element::Int((v as i64).wrapping_neg()),
                Element::F32(v) => Element::F32(-v),
                Element::F64(v) => Element::F64(-v),
            },
            Expr::Not(e) => Element::Int(i64::from(!truth(e.eval(scope, lane)?))),
            Expr::BitNot(e) => Element::Int(!whole(e.eval(scope, lane)?, "~")?),
            Expr::Binary(Op::And, a, b) => Element::Int(i64::from(truth(a.eval(scope, lane)?) && truth(b.eval(scope, lane)?))),
            Expr::Binary(Op::Or, a, b) => Element::Int(i64::from(truth(a.eval(scope, lane)?) || truth(b.eval(scope, lane)?))),
            Expr::Binary(op, a, b) => binary(*op, a.eval(scope, lane)?, b.eval(scope, lane)?)?,
        })
    }
}

/// Whether a value counts as true (non-zero), as C has it.
pub fn truth(v: Element) -> bool {
    match v {
        Element::Int(v) => v != 0,
        Element::U64(v) => v != 0,
        Element::F32(v) => v != 0.0,
        Element::F64(v) => v != 0.0,
    }
}

fn whole(v: Element, op: &str) -> Result<i64, String> {
    match v {
        Element::Int(v) => Ok(v),
        Element::U64(v) => Ok(v as i64),
        _ => Err(format!("`{op}` takes whole numbers, not floats")),
    }
}

fn binary(op: Op, a: Element, b: Element) -> Result<Element, String> {
    let compare = |o: std::cmp::Ordering| {
        let holds = match op {
            Op::Eq => o.is_eq(),
            Op::Ne => o.is_ne(),
            Op::Lt => o.is_lt(),
            Op::Le => o.is_le(),
            Op::Gt => o.is_gt(),
            _ => o.is_ge(),
        };
        Element::Int(i64::from(holds))
    };
    if let (Element::Int(x), Element::Int(y)) = (a, b) {
        return Ok(match op {
            Op::Add => Element::Int(x.wrapping_add(y)),
            Op::Sub => Element::Int(x.wrapping_sub(y)),
            Op::Mul => Element::Int(x.wrapping_mul(y)),
            Op::Div | Op::Rem if y == 0 => return Err("division by zero".into()),
            Op::Div => Element::Int(x.wrapping_div(y)),
            Op::Rem => Element::Int(x.wrapping_rem(y)),
            Op::BitAnd => Element::Int(x & y),
            Op::BitOr => Element::Int(x | y),
            Op::BitXor => Element::Int(x ^ y),
            Op::Shl => Element::Int(x.wrapping_shl(y as u32)),
            Op::Shr => Element::Int(x.wrapping_shr(y as u32)),
            _ => compare(x.cmp(&y)),
        });
    }
    // A float operation: f32 when neither side is f64, as C promotes.
    let single = !matches!(a, Element::F64(_)) && !matches!(b, Element::F64(_));
    let (x, y) = (a.value(), b.value());
    let float = |v: f64| if single { Element::F32(v as f32) } else { Element::F64(v) };
    Ok(match op {
        Op::Add => float(x + y),
        Op::Sub => float(x - y),
        Op::Mul => float(x * y),
        Op::Div => float(x / y),
        Op::Rem => float(x % y),
        Op::BitAnd | Op::BitOr | Op::BitXor | Op::Shl | Op::Shr => return Err("bit operations take whole numbers, not floats".into()),
        // NaN compares unequal to everything, and neither less nor greater.
        _ => x.partial_cmp(&y).map_or(Element::Int(i64::from(op == Op::Ne)), compare),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Lanes;

    impl Scope for Lanes {
        fn register(&self, r: u8, lane: usize) -> Result<u32, String> {
            Ok(u32::from(r) * 100 + lane as u32)
        }
        fn predicate(&self, p: u8, lane: usize) -> Result<bool, String> {
            Ok((lane >> p) & 1 == 1)
        }
        fn special(&self, s: Special, lane: usize) -> u32 {
            match s {
                Special::Laneid => lane as u32,
                _ => 7,
            }
        }
        fn element(&self, buffer: &str, index: i64) -> Result<Element, String> {
            match index {
                0..4 => Ok(Element::F32(index as f32 + 0.5)),
                _ => Err(format!("`{buffer}[{index}]` is past the end")),
            }
        }
    }

    fn eval(text: &str, lane: usize) -> Result<String, String> {
        let buffers = ["out".to_string()];
        let expr = parse(text, &Names { regs: 4, buffers: &buffers, unknown_buffer: &|name| format!("no buffer `{name}`") })?;
        expr.eval(&Lanes, lane).map(|v| v.to_string())
    }

    #[test]
    fn expressions_follow_c() {
        assert_eq!(eval("R3", 5), Ok("305".into()));
        assert_eq!(eval("R1 + 2 * 3 == 107 && P0", 1), Ok("1".into()));
        assert_eq!(eval("R1 + 2 * 3 == 107 && P0", 2), Ok("0".into()));
        assert_eq!(eval("(1 + 2) * 3 - -1", 0), Ok("10".into()));
        assert_eq!(eval("0xffffffff == -1", 0), Ok("1".into()));
        assert_eq!(eval("1 << 4 | 1", 0), Ok("17".into()));
        assert_eq!(eval("(0 - 0x7fffffffffffffff - 1) / -1 < 0", 0), Ok("1".into()));
        assert_eq!(eval("mem out[laneid] * 2", 1), Ok("3".into()));
        assert_eq!(eval("out[1] > 1.25", 0), Ok("1".into()));
        assert_eq!(eval("!P1 + ~0", 0), Ok("0".into()));
        assert_eq!(eval("tid.y + threadIdx + warpid", 0), Ok("21".into()));
        // `&&` skips the right side where the left decides it.
        assert_eq!(eval("laneid < 4 && out[laneid] > 0", 9), Ok("0".into()));
    }

    #[test]
    fn bad_expressions_say_what_is_wrong() {
        for (text, message) in [
            ("", "an expression is missing"),
            ("R4", "it uses R0 .. R3"),
            ("P9", "they are P0 .. P6"),
            ("R1 +", "ends where a value should be"),
            ("(R1", "expected `)` at the end"),
            ("R1 R2", "unexpected `R2`"),
            ("x[0]", "no buffer `x`"),
            ("mem 3", "write `mem NAME[INDEX]`"),
            ("tid.w", "is not something `print` knows"),
            ("1 / 0", "division by zero"),
            ("1 % 0", "division by zero"),
            ("1.5 & 1", "whole numbers"),
            ("out[1.5]", "not a whole number"),
            ("out[9]", "past the end"),
            ("R1 $ 2", "`$` cannot start"),
            ("12abc", "is not a number"),
        ] {
            let error = eval(text, 0).expect_err(text);
            assert!(error.contains(message), "{text}: {error}");
        }
        let long = vec!["1"; MAX_TOKENS].join("+");
        assert!(eval(&long, 0).expect_err("too long").contains("longer than"));
    }
}
