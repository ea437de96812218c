//! A recursive-descent parser over the token list. PTX is a sequence of directives and
//! `;`-terminated statements, so after an error the parser skips to the next `;` (or the end
//! of the enclosing block) and goes on: one run reports every error it can.

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::lexer::{LexError, Token, tokenize};
use crate::ops::{MAX_MODIFIERS, Modifier, Modifiers, OPCODES, Op, SpecialReg, StateSpace, Type, Vector};

/// The largest `%name<N>` register range accepted (16 Mi registers).
pub const MAX_REGISTER_RANGE: u32 = 1 << 24;

/// How deep `{ }` blocks, `{ }` initializers and `{ }`/`( )` operands may nest. The parser
/// and every pass over the tree recurse once per level, so without a bound a small file of
/// braces overflows the stack; real PTX nests a few levels.
pub const MAX_NESTING: usize = 64;

/// The most elements a `{ }` vector operand may hold. PTX's largest (a `wgmma.mma_async`
/// accumulator of n = 256 columns in f32) hold 128; the allocator connects every register of
/// an instruction with every other, so a vector of 100,000 registers would cost 10^10 steps.
pub const MAX_VECTOR_ELEMENTS: usize = 128;

/// A diagnostic has been recorded; the caller recovers.
struct Failed;

type PResult<T> = Result<T, Failed>;

pub(crate) struct Parser<'a> {
    tokens: Vec<(Token<'a>, Span)>,
    pos: usize,
    end: Span,
    /// An unterminated `/*` swallowed the end of the file, so unclosed blocks are no news.
    tail_swallowed: bool,
    pub(crate) diagnostics: Diagnostics,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(source: &'a str) -> Parser<'a> {
        let (tokens, lex_errors) = tokenize(source);
        let mut diagnostics = Diagnostics::default();
        let tail_swallowed = lex_errors.iter().any(|(e, _)| *e == LexError::UnterminatedComment);
        for (error, span) in lex_errors {
            let message = match error {
                LexError::UnexpectedCharacter => {
                    let ch = source[span.range()].chars().next().unwrap_or(' ');
                    format!("unexpected character `{}`", ch.escape_debug())
                }
                LexError::UnterminatedComment => "unterminated comment: `/*` has no closing `*/`".to_string(),
                LexError::UnterminatedString => "unterminated string: `\"` has no closing `\"` on its line".to_string(),
            };
            // Point at the opening, not the whole rest of the line or file.
            let span = match error {
                LexError::UnexpectedCharacter => span,
                LexError::UnterminatedComment => Span::new(span.start, span.start + 2),
                LexError::UnterminatedString => Span::new(span.start, span.start + 1),
            };
            diagnostics.push(Diagnostic { span, message, notes: Vec::new() });
        }
        let len = source.len() as u32;
        Parser { tokens, pos: 0, end: Span::new(len, len), tail_swallowed, diagnostics }
    }

    // ---- token access ----

    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).map(|t| t.0)
    }

    fn peek_at(&self, ahead: usize) -> Option<Token<'a>> {
        self.tokens.get(self.pos + ahead).map(|t| t.0)
    }

    fn span(&self) -> Span {
        self.tokens.get(self.pos).map_or(self.end, |t| t.1)
    }

    /// The end of the last token taken: where a missing `;` belongs.
    fn after_previous(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.tokens.get(i)) {
            Some((_, span)) => Span::new(span.end, span.end),
            None => Span::new(0, 0),
        }
    }

    fn previous_span(&self) -> Span {
        self.pos.checked_sub(1).and_then(|i| self.tokens.get(i)).map_or(Span::default(), |t| t.1)
    }

    fn bump(&mut self) -> (Token<'a>, Span) {
        let token = self.tokens.get(self.pos).copied().unwrap_or((Token::Semi, self.end));
        self.pos += 1;
        token
    }

    fn eat(&mut self, token: Token<'a>) -> bool {
        if self.peek() == Some(token) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn at_dot(&self, word: &str) -> bool {
        self.peek() == Some(Token::Dot(word))
    }

    fn describe_next(&self) -> String {
        match self.peek() {
            Some(token) => token.describe(),
            None => "the end of the file".to_string(),
        }
    }

    // ---- diagnostics ----

    fn error(&mut self, span: Span, message: String) -> Failed {
        self.diagnostics.push(Diagnostic { span, message, notes: Vec::new() });
        Failed
    }

    fn error_with_note(&mut self, span: Span, message: String, note: String) -> Failed {
        self.diagnostics.push(Diagnostic { span, message, notes: vec![note] });
        Failed
    }

    fn expected(&mut self, what: &str) -> Failed {
        let message = format!("expected {what}, found {}", self.describe_next());
        self.error(self.span(), message)
    }

    fn expect(&mut self, token: Token<'a>, what: &str) -> PResult<Span> {
        if self.peek() == Some(token) { Ok(self.bump().1) } else { Err(self.expected(what)) }
    }

    /// The `;` ending a statement. When it is missing, the error points just after the
    /// statement and nothing is skipped: the next token most likely starts the next statement.
    fn expect_semi(&mut self) -> PResult<Span> {
        if self.eat(Token::Semi) {
            return Ok(self.previous_span());
        }
        let message = format!("expected `;` after the statement, found {}", self.describe_next());
        let at = self.after_previous();
        self.diagnostics.push(Diagnostic { span: at, message, notes: Vec::new() });
        Ok(at)
    }

    /// Recovers from a failed statement that started at token `start`: nothing to skip when
    /// the failure came after its `;` (a wrong operand count), else on to the next statement.
    fn recover_from(&mut self, start: usize) {
        if self.pos > start && self.tokens.get(self.pos - 1).is_some_and(|t| t.0 == Token::Semi) {
            return;
        }
        if self.pos == start {
            self.pos += 1;
        }
        self.recover();
    }

    /// Skips to just after the next `;`, or to a `}` that closes the current block, keeping
    /// braces opened on the way balanced.
    fn recover(&mut self) {
        let mut depth = 0usize;
        while let Some(token) = self.peek() {
            match token {
                Token::Semi if depth == 0 => {
                    self.pos += 1;
                    return;
                }
                Token::LBrace => depth += 1,
                Token::RBrace if depth == 0 => return,
                Token::RBrace => {
                    depth -= 1;
                    if depth == 0 && self.peek_at(1).is_some_and(starts_module_item) {
                        self.pos += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    // ---- numbers ----

    fn integer_value(&mut self, text: &str, span: Span) -> PResult<u64> {
        let digits = text.strip_suffix('U').unwrap_or(text);
        let parsed = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            u64::from_str_radix(hex, 16)
        } else if let Some(bin) = digits.strip_prefix("0b").or_else(|| digits.strip_prefix("0B")) {
            u64::from_str_radix(bin, 2)
        } else if digits.len() > 1 && digits.starts_with('0') {
            u64::from_str_radix(&digits[1..], 8)
        } else {
            digits.parse::<u64>()
        };
        parsed.map_err(|_| {
            if digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit()) && digits.contains(['8', '9']) {
                self.error(span, format!("`{text}` is not an octal number (a leading 0 means octal in PTX)"))
            } else {
                self.error(span, format!("integer `{text}` does not fit in 64 bits"))
            }
        })
    }

    /// A non-negative integer that fits in 32 bits (sizes, counts, alignments).
    fn u32_value(&mut self, what: &str) -> PResult<u32> {
        match self.peek() {
            Some(Token::Int(text)) => {
                let span = self.bump().1;
                let value = self.integer_value(text, span)?;
                u32::try_from(value).map_err(|_| self.error(span, format!("{what} `{text}` is too large (at most {})", u32::MAX)))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn immediate(&mut self, negative: bool, start: Span) -> PResult<Spanned<Immediate>> {
        let (token, span) = self.bump();
        let span = start.to(span);
        let value = match token {
            Token::Int(text) => {
                let value = self.integer_value(text, span)?;
                if negative {
                    if value > 1 << 63 {
                        return Err(self.error(span, format!("integer `-{text}` does not fit in 64 bits")));
                    }
                    Immediate::Int((value as i64).wrapping_neg())
                } else {
                    Immediate::Int(value as i64)
                }
            }
            Token::F32Bits(text) => {
                let bits = self.hex_bits(text, 8, span)? as u32;
                Immediate::F32(if negative { bits ^ 0x8000_0000 } else { bits })
            }
            Token::F64Bits(text) => {
                let bits = self.hex_bits(text, 16, span)?;
                Immediate::F64(if negative { bits ^ (1 << 63) } else { bits })
            }
            Token::Float(text) => match text.parse::<f64>() {
                Ok(v) => Immediate::F64(if negative { -v } else { v }.to_bits()),
                Err(_) => return Err(self.error(span, format!("`{text}` is not a number"))),
            },
            _ => {
                self.pos -= 1;
                return Err(self.expected("a number"));
            }
        };
        Ok(Spanned { value, span })
    }

    fn hex_bits(&mut self, text: &str, digits: usize, span: Span) -> PResult<u64> {
        let hex = &text[2..];
        if hex.len() != digits {
            let kind = if digits == 8 { "an f32 (`0f`)" } else { "an f64 (`0d`)" };
            return Err(self.error(span, format!("{kind} literal has exactly {digits} hex digits, `{text}` has {}", hex.len())));
        }
        Ok(u64::from_str_radix(hex, 16).expect("lexer matched hex digits"))
    }

    // ---- module ----

    pub(crate) fn module(&mut self) -> Module<'a> {
        let mut module = Module::default();
        while let Some(token) = self.peek() {
            let start = self.pos;
            if self.module_item(token, &mut module).is_err() {
                self.recover_from(start);
            }
        }
        module
    }

    fn module_item(&mut self, token: Token<'a>, module: &mut Module<'a>) -> PResult<()> {
        let start = self.span();
        match token {
            Token::Dot(".version") => {
                self.bump();
                let (text, span) = match self.peek() {
                    Some(Token::Float(text)) => (text, self.bump().1),
                    _ => return Err(self.expected("a version such as `7.0`")),
                };
                let parsed = text.split_once('.').and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)));
                let value = parsed.ok_or_else(|| self.error(span, format!("`{text}` is not a version such as `7.0`")))?;
                module.version = Some(Spanned { value, span: start.to(span) });
            }
            Token::Dot(".target") => {
                self.bump();
                let mut names = Vec::new();
                loop {
                    match self.peek() {
                        Some(Token::Ident(name)) => names.push(name),
                        _ => return Err(self.expected("a target such as `sm_80`")),
                    }
                    self.bump();
                    if !self.eat(Token::Comma) {
                        break;
                    }
                }
                module.target = Some(Spanned { value: names, span: start.to(self.previous_span()) });
            }
            Token::Dot(".address_size") => {
                self.bump();
                let value = self.u32_value("an address size (32 or 64)")?;
                let span = start.to(self.previous_span());
                if value != 32 && value != 64 {
                    return Err(self.error(span, format!("`.address_size` is 32 or 64, not {value}")));
                }
                module.address_size = Some(Spanned { value, span });
            }
            Token::Dot(".file") => {
                self.bump();
                let index = self.u32_value("a file number")?;
                let path = match self.peek() {
                    Some(Token::Str(text)) => string_contents(text),
                    _ => return Err(self.expected("a file name in quotes")),
                };
                self.bump();
                // Optional modification time and size.
                while self.eat(Token::Comma) {
                    self.u32_value("a number")?;
                }
                module.items.push(Item::File { index, path, span: start.to(self.previous_span()) });
            }
            Token::Dot(".pragma") => {
                let pragma = self.pragma()?;
                module.items.push(Item::Pragma(pragma));
            }
            Token::Dot(".section") => {
                self.bump();
                self.debug_section(start)?;
            }
            Token::Dot(_) => {
                let linkage = self.linkage();
                match self.peek() {
                    Some(Token::Dot(".entry" | ".func")) => {
                        let function = self.function(linkage, start)?;
                        module.items.push(Item::Function(function));
                    }
                    Some(Token::Dot(".global" | ".const" | ".shared" | ".local")) => {
                        let variable = self.variable(linkage.map(|l| l.value), start)?;
                        module.items.push(Item::Variable(variable));
                    }
                    Some(Token::Dot(word)) => {
                        let span = self.span();
                        return Err(self.error(span, format!("unknown directive `{word}` at module level")));
                    }
                    _ => return Err(self.expected("`.entry`, `.func` or a variable declaration")),
                }
            }
            _ => return Err(self.expected("a directive such as `.version`, `.entry` or `.global`")),
        }
        Ok(())
    }

    fn linkage(&mut self) -> Option<Spanned<Linkage>> {
        let value = match self.peek()? {
            Token::Dot(".visible") => Linkage::Visible,
            Token::Dot(".extern") => Linkage::Extern,
            Token::Dot(".weak") => Linkage::Weak,
            Token::Dot(".common") => Linkage::Common,
            _ => return None,
        };
        Some(Spanned { value, span: self.bump().1 })
    }

    /// After `.section`: the section's name and its `{ ... }` of data directives
    /// (`.debug_abbrev`, `.debug_info`, ... as Triton and `nvcc -G` write them). DWARF
    /// does not change what a kernel computes, so its contents are skipped, by counting
    /// braces rather than by recursion.
    fn debug_section(&mut self, start: Span) -> PResult<()> {
        let name = match self.peek() {
            Some(Token::Dot(name)) => name,
            _ => return Err(self.expected("a section name such as `.debug_info`")),
        };
        if !name.starts_with(".debug_") {
            let span = self.span();
            return Err(self.error(span, "this section is not read: simt reads only DWARF sections (`.debug_abbrev`, `.debug_info`, ...)".to_string()));
        }
        self.bump();
        self.expect(Token::LBrace, "`{` opening the section")?;
        if self.skip_to_matching_brace() { Ok(()) } else { Err(self.error(start, format!("`.section {name}` has no closing `}}`"))) }
    }

    /// Skips past the `}` matching a `{` just consumed without looking inside: a loop, not
    /// a recursion, however deep the braces nest. False when the text ends first.
    fn skip_to_matching_brace(&mut self) -> bool {
        let mut open = 1usize;
        while open > 0 {
            match self.peek() {
                Some(Token::LBrace) => open += 1,
                Some(Token::RBrace) => open -= 1,
                Some(_) => {}
                None => return false,
            }
            self.pos += 1;
        }
        true
    }

    fn pragma(&mut self) -> PResult<Spanned<&'a str>> {
        let start = self.bump().1;
        let text = match self.peek() {
            Some(Token::Str(text)) => string_contents(text),
            _ => return Err(self.expected("a string after `.pragma`")),
        };
        self.bump();
        let end = self.expect_semi()?;
        Ok(Spanned { value: text, span: start.to(end) })
    }

    fn name(&mut self, what: &str) -> PResult<Spanned<&'a str>> {
        match self.peek() {
            Some(Token::Ident(name)) => Ok(Spanned { value: name, span: self.bump().1 }),
            _ => Err(self.expected(what)),
        }
    }

    fn function(&mut self, linkage: Option<Spanned<Linkage>>, start: Span) -> PResult<Function<'a>> {
        let kind = match self.bump().0 {
            Token::Dot(".entry") => FunctionKind::Entry,
            _ => FunctionKind::Func,
        };
        let returns = if kind == FunctionKind::Func && self.peek() == Some(Token::LParen) { self.param_list()? } else { Vec::new() };
        let name = self.name("a function name")?;
        let params = if self.peek() == Some(Token::LParen) { self.param_list()? } else { Vec::new() };
        let mut directives = Vec::new();
        loop {
            let span = self.span();
            let directive = match self.peek() {
                Some(Token::Dot(".maxntid")) => {
                    self.bump();
                    FunctionDirective::MaxNtid(self.dims3()?)
                }
                Some(Token::Dot(".reqntid")) => {
                    self.bump();
                    FunctionDirective::ReqNtid(self.dims3()?)
                }
                Some(Token::Dot(".minnctapersm")) => {
                    self.bump();
                    FunctionDirective::MinNctaPerSm(self.u32_value("a block count")?)
                }
                Some(Token::Dot(".maxnctapersm")) => {
                    self.bump();
                    FunctionDirective::MaxNctaPerSm(self.u32_value("a block count")?)
                }
                Some(Token::Dot(".maxnreg")) => {
                    self.bump();
                    FunctionDirective::MaxNreg(self.u32_value("a register count")?)
                }
                Some(Token::Dot(".noreturn")) => {
                    self.bump();
                    FunctionDirective::NoReturn
                }
                Some(Token::Dot(".pragma")) => {
                    let pragma = self.pragma()?;
                    directives.push(Spanned { value: FunctionDirective::Pragma(pragma.value), span: pragma.span });
                    continue;
                }
                _ => break,
            };
            directives.push(Spanned { value: directive, span: span.to(self.previous_span()) });
        }
        let body = match self.peek() {
            Some(Token::LBrace) => Some(self.block(0)),
            Some(Token::Semi) => {
                self.bump();
                None
            }
            _ => return Err(self.expected("`{` or `;` after the function's parameters")),
        };
        Ok(Function { linkage, kind, name, returns, params, directives, body, span: start.to(self.previous_span()) })
    }

    fn dims3(&mut self) -> PResult<[u32; 3]> {
        let mut dims = [1; 3];
        for (i, dim) in dims.iter_mut().enumerate() {
            if i > 0 && !self.eat(Token::Comma) {
                break;
            }
            *dim = self.u32_value("a thread count")?;
        }
        Ok(dims)
    }

    fn param_list(&mut self) -> PResult<Vec<Param<'a>>> {
        self.expect(Token::LParen, "`(`")?;
        let mut params = Vec::new();
        if self.eat(Token::RParen) {
            return Ok(params);
        }
        loop {
            params.push(self.param()?);
            if self.eat(Token::RParen) {
                break;
            }
            self.expect(Token::Comma, "`,` or `)` in the parameter list")?;
        }
        // Two parameters of one name would bind one argument to both (found by fuzzing):
        // sorted, so that a long list costs n log n. A prototype's are all `_`.
        let mut names: Vec<Spanned<&str>> = params.iter().map(|p| p.name).filter(|n| n.value != "_").collect();
        names.sort_by_key(|n| (n.value, n.span.start));
        if let Some(pair) = names.windows(2).find(|w| w[0].value == w[1].value) {
            return Err(self.error(pair[1].span, format!("`{}` is already a parameter of this list", pair[1].value)));
        }
        Ok(params)
    }

    fn param(&mut self) -> PResult<Param<'a>> {
        let start = self.span();
        let space = match self.peek() {
            Some(Token::Dot(".param")) => StateSpace::Param,
            Some(Token::Dot(".reg")) => StateSpace::Reg,
            _ => return Err(self.expected("`.param` or `.reg`")),
        };
        self.bump();
        let (mut align, mut ty, mut ptr) = (None, None, None::<PtrAttribute>);
        while let Some(Token::Dot(word)) = self.peek() {
            let span = self.bump().1;
            match word {
                ".align" => {
                    let value = self.u32_value("an alignment")?;
                    match &mut ptr {
                        Some(p) => p.align = Some(value),
                        None => align = Some(value),
                    }
                }
                ".ptr" => ptr = Some(PtrAttribute { space: None, align: None }),
                _ => match (Modifier::from_text(word), &mut ptr) {
                    (Some(m), Some(p)) if StateSpace::from_modifier(m).is_some() => p.space = StateSpace::from_modifier(m),
                    (Some(m), _) if Type::from_modifier(m).is_some() => ty = Type::from_modifier(m),
                    _ => return Err(self.error(span, format!("unexpected `{word}` in a parameter declaration"))),
                },
            }
        }
        let ty = ty.ok_or_else(|| self.expected("a parameter type such as `.u64`"))?;
        let name = self.name("a parameter name")?;
        let array = if self.eat(Token::LBracket) {
            let n = self.u32_value("an array size")?;
            self.expect(Token::RBracket, "`]`")?;
            Some(n)
        } else {
            None
        };
        Ok(Param { space, align, ptr, ty, name, array, span: start.to(self.previous_span()) })
    }

    // ---- declarations ----

    /// `[.align N] [.vN] .type name[dims] [= init];` after a state space.
    fn variable(&mut self, linkage: Option<Linkage>, start: Span) -> PResult<Variable<'a>> {
        let (space_token, space_span) = self.bump();
        let space = match space_token {
            Token::Dot(word) => Modifier::from_text(word).and_then(StateSpace::from_modifier),
            _ => None,
        };
        let space = space.ok_or_else(|| self.error(space_span, "expected a state space".to_string()))?;
        let (mut align, mut vector, mut ty) = (None, None, None);
        while let Some(Token::Dot(word)) = self.peek() {
            let span = self.bump().1;
            if word == ".align" {
                align = Some(self.u32_value("an alignment")?);
                continue;
            }
            match Modifier::from_text(word) {
                Some(m) if Vector::from_modifier(m).is_some() => vector = Vector::from_modifier(m),
                Some(m) if Type::from_modifier(m).is_some() => ty = Type::from_modifier(m),
                _ => return Err(self.error(span, format!("unexpected `{word}` in a variable declaration"))),
            }
        }
        let ty = ty.ok_or_else(|| self.expected("a type such as `.b8` or `.f32`"))?;
        let name = self.name("a variable name")?;
        let mut dims = Vec::new();
        while self.eat(Token::LBracket) {
            if self.eat(Token::RBracket) {
                dims.push(None);
                continue;
            }
            dims.push(Some(self.u32_value("an array size")?));
            self.expect(Token::RBracket, "`]`")?;
        }
        let init = if self.eat(Token::Eq) { Some(self.initializer(0)?) } else { None };
        self.expect_semi()?;
        Ok(Variable { linkage, space, align, vector, ty, name, dims, init, span: start.to(self.previous_span()) })
    }

    /// An initializer `depth` lists deep.
    fn initializer(&mut self, depth: usize) -> PResult<Initializer<'a>> {
        let start = self.span();
        match self.peek() {
            Some(Token::LBrace) => {
                self.too_deep(depth, "initializer lists")?;
                self.bump();
                let mut items = Vec::new();
                if !self.eat(Token::RBrace) {
                    loop {
                        items.push(self.initializer(depth + 1)?);
                        if self.eat(Token::RBrace) {
                            break;
                        }
                        self.expect(Token::Comma, "`,` or `}` in the initializer")?;
                    }
                }
                Ok(Initializer::List(Spanned { value: items, span: start.to(self.previous_span()) }))
            }
            Some(Token::Ident("generic")) if self.peek_at(1) == Some(Token::LParen) => {
                self.bump();
                self.bump();
                let name = self.name("a variable name")?;
                self.expect(Token::RParen, "`)`")?;
                Ok(Initializer::Address { name, generic: true })
            }
            Some(Token::Ident(_)) => Ok(Initializer::Address { name: self.name("a name")?, generic: false }),
            Some(Token::Minus) => {
                self.bump();
                Ok(Initializer::Value(self.immediate(true, start)?))
            }
            _ => Ok(Initializer::Value(self.immediate(false, start)?)),
        }
    }

    fn registers(&mut self) -> PResult<RegisterDecl<'a>> {
        let start = self.bump().1;
        let (mut vector, mut ty) = (None, None);
        while let Some(Token::Dot(word)) = self.peek() {
            let span = self.bump().1;
            match Modifier::from_text(word) {
                Some(m) if Vector::from_modifier(m).is_some() => vector = Vector::from_modifier(m),
                Some(m) if Type::from_modifier(m).is_some() => ty = Type::from_modifier(m),
                _ => return Err(self.error(span, format!("unexpected `{word}` in a `.reg` declaration"))),
            }
        }
        let ty = ty.ok_or_else(|| self.expected("a register type such as `.b32` or `.pred`"))?;
        let mut names = Vec::new();
        loop {
            let name = self.name("a register name")?;
            let range = if self.eat(Token::Lt) {
                let count = match self.peek() {
                    Some(Token::Int(_)) => self.u32_value("a register count")?,
                    _ => {
                        let found = self.describe_next();
                        let span = self.span();
                        return Err(self.error(span, format!("bad register range: expected a count after `{}<`, found {found}", name.value)));
                    }
                };
                let count_span = self.previous_span();
                if self.peek() != Some(Token::Gt) {
                    let found = self.describe_next();
                    let span = self.span();
                    return Err(self.error(span, format!("bad register range: expected `>` after `{}<{count}`, found {found}", name.value)));
                }
                self.bump();
                if count == 0 || count > MAX_REGISTER_RANGE {
                    return Err(self.error(
                        count_span,
                        format!("bad register range: `{}<{count}>` declares {count} registers; a range holds 1 to {MAX_REGISTER_RANGE}", name.value),
                    ));
                }
                Some(count)
            } else {
                None
            };
            names.push(RegisterName { name: name.value, range, span: name.span.to(self.previous_span()) });
            if !self.eat(Token::Comma) {
                break;
            }
        }
        self.expect_semi()?;
        Ok(RegisterDecl { vector, ty, names, span: start.to(self.previous_span()) })
    }

    // ---- bodies ----

    /// Refuses a `depth`-th nested level (counting from 0) past [`MAX_NESTING`], pointing at
    /// its opening bracket, and skips past the close of the outermost of the `depth` brackets
    /// around it, so that recovery goes on after the whole operand or initializer.
    fn too_deep(&mut self, depth: usize, what: &str) -> PResult<()> {
        if depth < MAX_NESTING {
            return Ok(());
        }
        let span = self.span();
        let failed = self.error(span, format!("{what} nest deeper than {MAX_NESTING} levels"));
        // A loop, not a recursion; `{ }` and `( )` counted alike. A `;` ends the statement
        // even with brackets left open.
        let mut open = depth;
        while let Some(token) = self.peek() {
            match token {
                Token::Semi => break,
                Token::LBrace | Token::LParen => open += 1,
                Token::RBrace | Token::RParen => open = open.saturating_sub(1),
                _ => {}
            }
            self.pos += 1;
            if open == 0 {
                break;
            }
        }
        Err(failed)
    }

    /// A `{ }` block inside `depth` others.
    fn block(&mut self, depth: usize) -> Block<'a> {
        if depth >= MAX_NESTING {
            let span = self.span();
            self.error(span, format!("blocks nest deeper than {MAX_NESTING} levels"));
            let start = self.bump().1;
            self.skip_to_matching_brace();
            return Block { statements: Vec::new(), span: start.to(self.previous_span()) };
        }
        let start = self.bump().1;
        let mut statements = Vec::new();
        loop {
            match self.peek() {
                None => {
                    if !self.tail_swallowed {
                        self.error(start, "unclosed block: this `{` has no matching `}`".to_string());
                    }
                    break;
                }
                Some(Token::RBrace) => {
                    self.bump();
                    break;
                }
                Some(_) => {
                    let before = self.pos;
                    match self.statement(depth) {
                        Ok(statement) => statements.push(statement),
                        Err(Failed) => self.recover_from(before),
                    }
                }
            }
        }
        Block { statements, span: start.to(self.previous_span()) }
    }

    /// A statement of a block inside `depth` others.
    fn statement(&mut self, depth: usize) -> PResult<Statement<'a>> {
        let start = self.span();
        match self.peek().expect("caller checked") {
            Token::LBrace => Ok(Statement::Block(self.block(depth + 1))),
            Token::Dot(".reg") => Ok(Statement::Registers(self.registers()?)),
            Token::Dot(".local" | ".shared" | ".param" | ".const" | ".global") => Ok(Statement::Variable(self.variable(None, start)?)),
            Token::Dot(".pragma") => Ok(Statement::Pragma(self.pragma()?)),
            Token::Dot(".loc") => {
                self.bump();
                let file = self.u32_value("a file number")?;
                let line = self.u32_value("a line number")?;
                let column = self.u32_value("a column number")?;
                // PTX 7.2's `, function_name LABEL[+N], inlined_at FILE LINE COLUMN`: the
                // inlined callee's name (a DWARF string label) and where it was called from.
                let mut inlined_at = None;
                while self.eat(Token::Comma) {
                    match self.peek() {
                        Some(Token::Ident("function_name")) => {
                            self.bump();
                            self.name("the function name's label")?;
                            if self.eat(Token::Plus) {
                                self.u32_value("an offset")?;
                            }
                        }
                        Some(Token::Ident("inlined_at")) => {
                            self.bump();
                            inlined_at = Some([self.u32_value("a file number")?, self.u32_value("a line number")?, self.u32_value("a column number")?]);
                        }
                        _ => return Err(self.expected("`function_name` or `inlined_at`")),
                    }
                }
                Ok(Statement::Loc { file, line, column, inlined_at, span: start.to(self.previous_span()) })
            }
            Token::Dot(word) => Err(self.error(start, format!("unknown directive `{word}` in a function body"))),
            Token::Ident(name) if self.peek_at(1) == Some(Token::Colon) => {
                self.bump();
                self.bump();
                let label = Spanned { value: name, span: start };
                if self.at_dot(".callprototype") {
                    return self.prototype(label);
                }
                if self.at_dot(".branchtargets") {
                    self.bump();
                    let mut targets = vec![self.name("a label")?];
                    while self.eat(Token::Comma) {
                        targets.push(self.name("a label")?);
                    }
                    self.expect_semi()?;
                    return Ok(Statement::BranchTargets { name: label, targets });
                }
                Ok(Statement::Label(label))
            }
            Token::At | Token::Ident(_) => Ok(Statement::Instruction(self.instruction()?)),
            _ => Err(self.expected("an instruction, a label or a declaration")),
        }
    }

    fn prototype(&mut self, name: Spanned<&'a str>) -> PResult<Statement<'a>> {
        self.bump();
        let returns = if self.peek() == Some(Token::LParen) { self.param_list()? } else { Vec::new() };
        if self.peek() != Some(Token::Ident("_")) {
            return Err(self.expected("`_` in the prototype"));
        }
        self.bump();
        let params = if self.peek() == Some(Token::LParen) { self.param_list()? } else { Vec::new() };
        self.expect_semi()?;
        Ok(Statement::Prototype { name, returns, params, span: name.span.to(self.previous_span()) })
    }

    fn instruction(&mut self) -> PResult<Instruction<'a>> {
        let start = self.span();
        let guard = if self.eat(Token::At) {
            let negated = self.eat(Token::Bang);
            let predicate = self.name("a predicate register after `@`")?;
            Some(Guard { negated, predicate: predicate.value, span: start.to(predicate.span) })
        } else {
            None
        };
        let (opcode, opcode_span) = match self.peek() {
            Some(Token::Ident(name)) => (name, self.bump().1),
            _ => return Err(self.expected("an instruction")),
        };
        if !OPCODES.contains(&opcode) {
            return Err(self.error_with_note(
                opcode_span,
                format!("unknown instruction `{opcode}`"),
                "docs/ptx.md lists the instructions the PTX front end reads".to_string(),
            ));
        }
        let mut modifiers = [(Modifier::B32, Span::default()); MAX_MODIFIERS];
        let mut count = 0;
        let mut shape = None;
        while let Some(Token::Dot(word)) = self.peek() {
            let mut span = self.bump().1;
            // A qualified word, `.mbarrier::complete_tx::bytes`, is one modifier.
            let mut qualified = String::new();
            while self.peek() == Some(Token::Colon) && self.peek_at(1) == Some(Token::Colon) {
                // A part is a word, a number (`.cta_group::1`), or a number with a word touching
                // it (`.pack::16b`, two tokens).
                let part = match self.peek_at(2) {
                    Some(Token::Ident(part) | Token::Int(part)) => part,
                    _ => break,
                };
                qualified = format!("{}::{part}", if qualified.is_empty() { word } else { &qualified });
                self.bump();
                self.bump();
                span = span.to(self.bump().1);
                if let (Some(Token::Ident(rest)), true) = (self.peek(), matches!(self.tokens.get(self.pos - 1), Some((Token::Int(_), _))))
                    && self.span().start == span.end
                {
                    qualified.push_str(rest);
                    span = span.to(self.bump().1);
                }
            }
            let text = if qualified.is_empty() { word } else { qualified.as_str() };
            // `.shared::cta` is `.shared`, the block's own; so is `.shared::cluster`, since every
            // block is a cluster of one (simt launches no clusters).
            let text = if matches!(text, ".shared::cta" | ".shared::cluster") { ".shared" } else { text };
            let Some(modifier) = Modifier::from_text(text).or_else(|| {
                shape = warpgroup_shape(text).or(shape);
                shape.is_some().then_some(Modifier::M64nNkK)
            }) else {
                return Err(self.error(span, format!("unknown modifier `{text}` on `{opcode}`")));
            };
            if count == MAX_MODIFIERS {
                return Err(self.error(span, format!("`{opcode}` has more than {MAX_MODIFIERS} modifiers")));
            }
            modifiers[count] = (modifier, span);
            count += 1;
        }
        let op_span = opcode_span.to(self.previous_span());
        let op = match Op::build(Modifiers::new(opcode, opcode_span, &modifiers[..count]).with_shape(shape)) {
            Ok(Some(op)) => op,
            Ok(None) => unreachable!("every name in OPCODES has a builder"),
            Err(e) => return Err(self.error(e.span, e.message)),
        };
        let mut operands = Vec::new();
        // An opcode without operands never reads the next line's opcode as one when its `;` is missing.
        if *op.operand_count().end() > 0 && self.peek().is_some_and(starts_operand) {
            loop {
                operands.push(self.operand(0)?);
                if !self.eat(Token::Comma) {
                    break;
                }
            }
        }
        if let Op::Call(_) = op {
            self.normalize_call(&mut operands, op_span)?;
        }
        let end = self.expect_semi()?;
        let span = start.to(end);
        let expected = op.operand_count();
        if !expected.contains(&operands.len()) {
            let want = if expected.start() == expected.end() { format!("{}", expected.start()) } else { format!("{} or {}", expected.start(), expected.end()) };
            let plural = if *expected.end() == 1 { "" } else { "s" };
            return Err(self.error(span, format!("`{op}` takes {want} operand{plural}, found {}", operands.len())));
        }
        Ok(Instruction { guard, op, op_span, operands, span })
    }

    /// `call (r), f, (a);` with either list left out becomes `(returns), callee, (arguments)`.
    fn normalize_call(&mut self, operands: &mut Vec<Operand<'a>>, op_span: Span) -> PResult<()> {
        let empty = |at: Span| Operand { kind: OperandKind::List(Vec::new()), span: Span::new(at.end, at.end) };
        if !matches!(operands.first(), Some(Operand { kind: OperandKind::List(_), .. })) {
            operands.insert(0, empty(op_span));
        }
        if operands.len() == 2 {
            let after = operands[1].span;
            operands.push(empty(after));
        }
        let shape_ok = matches!(operands.get(1), Some(Operand { kind: OperandKind::Name(_), .. }))
            && matches!(operands.get(2), Some(Operand { kind: OperandKind::List(_), .. }))
            && operands.get(3).is_none_or(|o| matches!(o.kind, OperandKind::Name(_)))
            && operands.len() <= 4;
        if shape_ok {
            Ok(())
        } else {
            let span = operands.first().map_or(op_span, |o| o.span).to(operands.last().map_or(op_span, |o| o.span));
            Err(self.error_with_note(
                span,
                "malformed `call` operands".to_string(),
                "a call reads `call (results), function, (arguments);`, either list left out when empty".to_string(),
            ))
        }
    }

    /// An operand inside `depth` vectors or lists.
    fn operand(&mut self, depth: usize) -> PResult<Operand<'a>> {
        let start = self.span();
        let kind = match self.peek() {
            Some(Token::LBrace) => {
                self.too_deep(depth, "vector operands")?;
                self.bump();
                let items = self.operand_list(Token::RBrace, "`,` or `}` in the vector", depth + 1)?;
                if items.len() > MAX_VECTOR_ELEMENTS {
                    let span = start.to(self.previous_span());
                    return Err(self.error(span, format!("this vector operand holds {} elements; a vector holds at most {MAX_VECTOR_ELEMENTS}", items.len())));
                }
                // `{ %r1 }`, as Triton's inline assembly writes a scalar, is the register itself.
                match <[Operand<'a>; 1]>::try_from(items) {
                    Ok([only]) => only.kind,
                    Err(items) => OperandKind::Vector(items),
                }
            }
            Some(Token::LParen) => {
                self.too_deep(depth, "operand lists")?;
                self.bump();
                OperandKind::List(self.operand_list(Token::RParen, "`,` or `)` in the list", depth + 1)?)
            }
            // `[map, {c0, c1}]`: a tensor map's address and a box's coordinates (`cp.async.bulk.tensor`).
            Some(Token::LBracket) if matches!(self.peek_at(1), Some(Token::Ident(_))) && self.peek_at(2) == Some(Token::Comma) => {
                self.bump();
                let map = self.name("a tensor map's address")?;
                self.bump();
                let coords = match self.operand(depth + 1)? {
                    Operand { kind: OperandKind::Vector(items), .. } => items,
                    one => vec![one],
                };
                self.expect(Token::RBracket, "`]` closing the tensor map and coordinates")?;
                OperandKind::TensorAddress(map, coords)
            }
            Some(Token::LBracket) => {
                self.bump();
                OperandKind::Address(self.address()?)
            }
            Some(Token::Bang) => {
                self.bump();
                OperandKind::Not(self.name("a predicate after `!`")?.value)
            }
            Some(Token::Minus) => {
                self.bump();
                OperandKind::Immediate(self.immediate(true, start)?.value)
            }
            Some(Token::Int(_) | Token::F32Bits(_) | Token::F64Bits(_) | Token::Float(_)) => OperandKind::Immediate(self.immediate(false, start)?.value),
            Some(Token::Ident("_")) => {
                self.bump();
                // `elect.sync _|%p, m`: no lane number wanted, the predicate is.
                if self.eat(Token::Pipe) { OperandKind::Pair("_", self.name("a predicate after `|`")?.value) } else { OperandKind::Sink }
            }
            // PTX's one predefined constant (`cuda_fp16.h`'s shuffles clamp with it).
            Some(Token::Ident("WARP_SZ")) => {
                self.bump();
                OperandKind::Immediate(Immediate::Int(32))
            }
            Some(Token::Ident(name)) => {
                self.bump();
                match SpecialReg::lookup(name) {
                    Some(Ok(special)) => OperandKind::Special(special),
                    Some(Err(with_dim)) => {
                        let dim = match self.peek() {
                            Some(Token::Dot(".x")) => crate::ops::Dim::X,
                            Some(Token::Dot(".y")) => crate::ops::Dim::Y,
                            Some(Token::Dot(".z")) => crate::ops::Dim::Z,
                            _ => return Err(self.error(start, format!("`{name}` needs a component: `{name}.x`, `{name}.y` or `{name}.z`"))),
                        };
                        self.bump();
                        OperandKind::Special(with_dim(dim))
                    }
                    None if self.eat(Token::Pipe) => OperandKind::Pair(name, self.name("a predicate after `|`")?.value),
                    // `local0[0]`, as tinygrad takes a shared array's address: the address itself.
                    None if self.peek() == Some(Token::LBracket) => {
                        let index_at = self.bump().1;
                        if self.signed_offset()? != 0 {
                            return Err(self.error(
                                index_at.to(self.previous_span()),
                                format!("`{name}[N]` with N other than 0 is not supported: add N to `{name}` with `add`"),
                            ));
                        }
                        self.expect(Token::RBracket, "`]` closing the index")?;
                        OperandKind::Name(name)
                    }
                    None => OperandKind::Name(name),
                }
            }
            _ => return Err(self.expected("an operand")),
        };
        Ok(Operand { kind, span: start.to(self.previous_span()) })
    }

    fn operand_list(&mut self, close: Token<'a>, what: &str, depth: usize) -> PResult<Vec<Operand<'a>>> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(self.operand(depth)?);
            if self.eat(close) {
                return Ok(items);
            }
            self.expect(Token::Comma, what)?;
        }
    }

    /// After `[`: `base`, `base+N`, `base+-N`, `base-N` or `N`, then `]`.
    fn address(&mut self) -> PResult<Address<'a>> {
        let base = match self.peek() {
            Some(Token::Ident(_)) => Some(self.name("an address")?),
            _ => None,
        };
        // With a base, `+` is eaten here and `-` belongs to the offset's sign.
        let offset = if base.is_none() || self.eat(Token::Plus) || self.peek() == Some(Token::Minus) { self.signed_offset()? } else { 0 };
        self.expect(Token::RBracket, "`]` closing the address")?;
        Ok(Address { base, offset })
    }

    fn signed_offset(&mut self) -> PResult<i64> {
        let start = self.span();
        let negative = self.eat(Token::Minus);
        match self.peek() {
            Some(Token::Int(_)) => match self.immediate(negative, start)?.value {
                Immediate::Int(v) => Ok(v),
                _ => unreachable!("an integer token makes an integer"),
            },
            _ => Err(self.expected("an integer offset")),
        }
    }
}

fn starts_operand(token: Token<'_>) -> bool {
    matches!(
        token,
        Token::LBrace | Token::LParen | Token::LBracket | Token::Bang | Token::Minus | Token::Int(_) | Token::F32Bits(_) | Token::F64Bits(_) | Token::Float(_)
    ) || matches!(token, Token::Ident(_))
}

fn starts_module_item(token: Token<'_>) -> bool {
    matches!(
        token,
        Token::Dot(
            ".visible" | ".extern" | ".weak" | ".common" | ".entry" | ".func" | ".global" | ".const" | ".shared" | ".version" | ".target" | ".address_size"
        )
    )
}

/// The text between a string token's quotes. An unterminated string (lexed to the end of its
/// line, with an error of its own) has no closing quote to drop.
fn string_contents(token: &str) -> &str {
    let inner = token.strip_prefix('"').unwrap_or(token);
    inner.strip_suffix('"').unwrap_or(inner)
}

/// N and K of a warpgroup MMA's shape, `.m64nNkK`: N a multiple of 8 from 8 to 256, K 8, 16 or 32.
fn warpgroup_shape(word: &str) -> Option<(u16, u8)> {
    let (n, k) = word.strip_prefix(".m64n")?.split_once('k')?;
    let (n, k) = (n.parse::<u16>().ok()?, k.parse::<u8>().ok()?);
    (n.is_multiple_of(8) && (8..=256).contains(&n) && matches!(k, 8 | 16 | 32) && !word.contains('+')).then_some((n, k))
}
