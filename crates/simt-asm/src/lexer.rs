//! The logos lexer shared by `.s` files and `--arg` values.
//!
//! Words keep their dots (`LD.GLOBAL.V4.B32`, `SR_TID.X`, `R1.x`) so that a
//! mnemonic, a special register or a mistyped register is one token; the
//! assembler splits mnemonics on `.` itself, which keeps the grammar free of
//! longest-match surprises.

use std::ops::Range;

use logos::Logos;

/// What the lexer could not read, with where.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LexError {
    /// Byte range of the offending text.
    pub span: Range<usize>,
    /// What is wrong, lowercase.
    pub message: String,
}

/// One token; text-carrying variants borrow from the source.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Token<'a> {
    /// End of a line: statements never span lines.
    #[token("\n")]
    Newline,
    /// A `/* ... */` comment; one that spans lines also ends the statement.
    #[regex(r"/\*([^*]|\*+[^*/])*\*+/", |lex| lex.slice().contains('\n'), allow_greedy = true)]
    BlockComment(bool),
    /// `/*` without its `*/`.
    #[token("/*")]
    UnterminatedComment,
    /// An identifier, mnemonic, register or special register, dots included. Names are spelled
    /// as PTX spells identifiers (`$` and a leading `%` too), so a PTX kernel's, parameter's or
    /// shared variable's name is one in `simt ptx`'s listing.
    #[regex(r"([A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]*)(\.[A-Za-z0-9_$]+)*")]
    Word(&'a str),
    /// A directive-like word such as `.u32` or `.ptr.f32`.
    #[regex(r"\.[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*")]
    DotWord(&'a str),
    /// Any numeric literal; classified by [`crate::literal::parse_number`].
    #[regex(r"[0-9][0-9A-Za-z_]*")]
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-][0-9]+")]
    Number(&'a str),
    /// A string literal on one line, quotes included (`PRINTF`'s format); its escapes are
    /// read by `simt_isa::printf::unquote`.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str(&'a str),
    /// A `"` that its line never closes.
    #[regex(r#""([^"\\\n]|\\[^\n])*"#)]
    UnterminatedString,
    /// `@` and what follows up to a space or delimiter: a guard (`@!P0`) or a file (`@x.npy`).
    #[regex(r"@[^ \t\r\f\n,;\[\]()]*")]
    At(&'a str),
    /// `.kernel`
    #[token(".kernel", ignore(case))]
    Kernel,
    /// `.param`
    #[token(".param", ignore(case))]
    Param,
    /// `.shared`
    #[token(".shared", ignore(case))]
    Shared,
    /// `.align`
    #[token(".align", ignore(case))]
    Align,
    /// `.local`
    #[token(".local", ignore(case))]
    Local,
    /// `.regs`
    #[token(".regs", ignore(case))]
    Regs,
    /// `.launch`
    #[token(".launch", ignore(case))]
    Launch,
    /// `.arg`
    #[token(".arg", ignore(case))]
    Arg,
    /// `.target`
    #[token(".target", ignore(case))]
    Target,
    /// `,`
    #[token(",")]
    Comma,
    /// `:`
    #[token(":")]
    Colon,
    /// `;`
    #[token(";")]
    Semi,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `|`
    #[token("|")]
    Pipe,
    /// `!`
    #[token("!")]
    Bang,
    /// `=`
    #[token("=")]
    Equals,
}

impl std::fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            Token::Newline => "end of line",
            Token::BlockComment(_) | Token::UnterminatedComment => "comment",
            Token::Word(s) | Token::DotWord(s) | Token::Number(s) | Token::At(s) | Token::Str(s) => s,
            Token::UnterminatedString => "string",
            Token::Kernel => ".kernel",
            Token::Param => ".param",
            Token::Shared => ".shared",
            Token::Align => ".align",
            Token::Local => ".local",
            Token::Regs => ".regs",
            Token::Launch => ".launch",
            Token::Arg => ".arg",
            Token::Target => ".target",
            Token::Comma => ",",
            Token::Colon => ":",
            Token::Semi => ";",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Pipe => "|",
            Token::Bang => "!",
            Token::Equals => "=",
        };
        f.write_str(text)
    }
}

use simt_isa::MAX_LINE_TOKENS;

/// A token with its byte range, as the grammar consumes it.
pub type Spanned<'a> = (usize, Token<'a>, usize);

/// Lexes `source`, calling `line` with the tokens of every statement line
/// (possibly empty) and `error` for text that is not a token. A line with a
/// lexing error is not passed to `line`.
pub fn for_each_line<'a>(source: &'a str, tokens: &mut Vec<Spanned<'a>>, mut line: impl FnMut(&[Spanned<'a>]), mut error: impl FnMut(LexError)) {
    let mut lexer = Token::lexer(source);
    let mut bad = false;
    tokens.clear();
    let mut flush = |tokens: &mut Vec<Spanned<'a>>, bad: &mut bool| {
        if !*bad && !tokens.is_empty() {
            line(tokens);
        }
        tokens.clear();
        *bad = false;
    };
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        match result {
            Ok(Token::Newline | Token::BlockComment(true)) => flush(tokens, &mut bad),
            Ok(Token::BlockComment(false)) => {}
            Ok(Token::UnterminatedComment) => {
                error(LexError { span, message: "this `/*` comment is never closed: end it with `*/`".into() });
                // Everything after an unclosed comment is comment text.
                flush(tokens, &mut bad);
                return;
            }
            Ok(Token::UnterminatedString) => {
                if !bad {
                    error(LexError { span, message: "this string is never closed: end it with `\"` on the same line".into() });
                }
                bad = true;
            }
            Ok(token) if tokens.len() < MAX_LINE_TOKENS => tokens.push((span.start, token, span.end)),
            Ok(_) => {
                if !bad {
                    error(LexError {
                        span: tokens[0].0..span.end,
                        message: format!(
                            "this statement has more than {MAX_LINE_TOKENS} tokens; put large data in a file and pass it as `@FILE.npy` or `@FILE.bin`"
                        ),
                    });
                }
                bad = true;
            }
            Err(mut e) => {
                if !bad {
                    let c = source.get(span.start..).and_then(|rest| rest.chars().next()).unwrap_or(' ');
                    e.span = span.start..span.start + c.len_utf8();
                    e.message = format!("unexpected character `{}`: remove it", c.escape_default());
                    error(e);
                }
                bad = true;
            }
        }
    }
    flush(tokens, &mut bad);
}

#[cfg(test)]
mod tests {
    use super::Token;
    use logos::Logos;
    use proptest::prelude::*;

    proptest! {
        /// A name is one word exactly when `simt_isa::is_identifier` says it is spelled as a
        /// name: the translator and the disassembler rely on that to write names `.s` reads.
        #[test]
        fn a_word_is_what_is_identifier_accepts(text in "[A-Za-z0-9_$%@+-]{1,6}") {
            let tokens: Vec<_> = Token::lexer(&text).collect();
            let one_word = matches!(tokens[..], [Ok(Token::Word(w))] if w == text);
            prop_assert_eq!(one_word, simt_isa::is_identifier(&text), "{:?}", tokens);
        }
    }
}
