//! PTX tokens (logos). An opcode's modifiers and a directive are separate `Dot` tokens
//! (`ld` `.global` `.f32`), so the parser sees every modifier with its own span.

use logos::Logos;

use crate::ast::Span;

/// Why some text is not a token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LexError {
    /// A character that starts no token.
    #[default]
    UnexpectedCharacter,
    /// `/*` without `*/`.
    UnterminatedComment,
    /// `"` without its closing `"` on the same line.
    UnterminatedString,
}

/// One token. Numbers keep their text: the parser converts them where it knows what they are.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\x0C]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Token<'s> {
    /// `/* ... */`, dropped by [`tokenize`].
    #[token("/*", block_comment)]
    Comment,
    /// `.reg`, `.global`, `.f32`, `.x`: a directive, a modifier or a component.
    #[regex(r"\.[A-Za-z0-9_][A-Za-z0-9_]*", |lex| lex.slice())]
    Dot(&'s str),
    /// Opcodes, registers (`%r1`), labels (`$L__BB0_2`), variables and functions.
    #[regex(r"[A-Za-z_$%][A-Za-z0-9_$]*", |lex| lex.slice())]
    Ident(&'s str),
    /// `42`, `0x2A`, `0b101`, `017` (octal), optionally with a `U` suffix.
    #[regex(r"[0-9]+U?|0[xX][0-9a-fA-F]+U?|0[bB][01]+U?", |lex| lex.slice())]
    Int(&'s str),
    /// `0f3F800000`: the bits of an f32.
    #[regex(r"0[fF][0-9a-fA-F]+", |lex| lex.slice())]
    F32Bits(&'s str),
    /// `0d3FF0000000000000`: the bits of an f64.
    #[regex(r"0[dD][0-9a-fA-F]+", |lex| lex.slice())]
    F64Bits(&'s str),
    /// A decimal float: `1.5`, `2e-3`, and `.version`'s `7.0`.
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", |lex| lex.slice())]
    Float(&'s str),
    /// `"text"` with its quotes (`.pragma`, `.file`).
    #[regex(r#""[^"\n]*""#, |lex| lex.slice())]
    #[regex(r#""[^"\n]*"#, unterminated_string)]
    Str(&'s str),
    /// `,`
    #[token(",")]
    Comma,
    /// `;`
    #[token(";")]
    Semi,
    /// `:`
    #[token(":")]
    Colon,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
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
    /// `<`
    #[token("<")]
    Lt,
    /// `>`
    #[token(">")]
    Gt,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `!`
    #[token("!")]
    Bang,
    /// `|`
    #[token("|")]
    Pipe,
    /// `@`
    #[token("@")]
    At,
    /// `=`
    #[token("=")]
    Eq,
}

/// Skips to the end of a block comment.
fn block_comment<'s>(lex: &mut logos::Lexer<'s, Token<'s>>) -> Result<(), LexError> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            Ok(())
        }
        None => {
            lex.bump(lex.remainder().len());
            Err(LexError::UnterminatedComment)
        }
    }
}

fn unterminated_string<'s>(_: &mut logos::Lexer<'s, Token<'s>>) -> Result<&'s str, LexError> {
    Err(LexError::UnterminatedString)
}

impl Token<'_> {
    /// How the token reads in messages.
    pub fn describe(&self) -> String {
        match self {
            Token::Comment => "a comment".into(),
            Token::Dot(s) | Token::Ident(s) | Token::Int(s) | Token::F32Bits(s) | Token::F64Bits(s) | Token::Float(s) | Token::Str(s) => {
                format!("`{s}`")
            }
            Token::Comma => "`,`".into(),
            Token::Semi => "`;`".into(),
            Token::Colon => "`:`".into(),
            Token::LBrace => "`{`".into(),
            Token::RBrace => "`}`".into(),
            Token::LBracket => "`[`".into(),
            Token::RBracket => "`]`".into(),
            Token::LParen => "`(`".into(),
            Token::RParen => "`)`".into(),
            Token::Lt => "`<`".into(),
            Token::Gt => "`>`".into(),
            Token::Plus => "`+`".into(),
            Token::Minus => "`-`".into(),
            Token::Bang => "`!`".into(),
            Token::Pipe => "`|`".into(),
            Token::At => "`@`".into(),
            Token::Eq => "`=`".into(),
        }
    }
}

/// A token or an error with where it is.
pub type Spanned<T> = (T, Span);

/// The tokens of `source` with their spans (comments dropped), and every span no token matches.
///
/// Consecutive unexpected characters are reported once, as one span.
pub fn tokenize(source: &str) -> (Vec<Spanned<Token<'_>>>, Vec<Spanned<LexError>>) {
    // PTX averages 4 to 5 bytes per token; reserving for 3 avoids regrowing.
    let mut tokens = Vec::with_capacity(source.len() / 3 + 16);
    let mut errors: Vec<(LexError, Span)> = Vec::new();
    let mut lexer = Token::lexer(source);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(range.start as u32, range.end as u32);
        match result {
            Ok(Token::Comment) => {}
            Ok(token) => tokens.push((token, span)),
            Err(error) => match errors.last_mut() {
                // The string as far as it goes still stands for a string, so the parser says
                // nothing more about the statement around it.
                _ if error == LexError::UnterminatedString => {
                    tokens.push((Token::Str(lexer.slice()), span));
                    errors.push((error, span));
                }
                Some((LexError::UnexpectedCharacter, last)) if error == LexError::UnexpectedCharacter && last.end == span.start => last.end = span.end,
                _ => errors.push((error, span)),
            },
        }
    }
    (tokens, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(s: &str) -> Vec<Token<'_>> {
        let (tokens, errors) = tokenize(s);
        assert!(errors.is_empty(), "{errors:?}");
        tokens.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn modifiers_are_tokens_of_their_own() {
        use Token::*;
        assert_eq!(
            lex("@%p1 ld.global.v4.f32 {%f1, %f2}, [%rd4+-8]; // done\nmov.u32 %r1, %tid.x;"),
            [
                At,
                Ident("%p1"),
                Ident("ld"),
                Dot(".global"),
                Dot(".v4"),
                Dot(".f32"),
                LBrace,
                Ident("%f1"),
                Comma,
                Ident("%f2"),
                RBrace,
                Comma,
                LBracket,
                Ident("%rd4"),
                Plus,
                Minus,
                Int("8"),
                RBracket,
                Semi,
                Ident("mov"),
                Dot(".u32"),
                Ident("%r1"),
                Comma,
                Ident("%tid"),
                Dot(".x"),
                Semi,
            ]
        );
    }

    #[test]
    fn numbers_and_labels() {
        use Token::*;
        assert_eq!(
            lex("0f3F800000 0d3FF0000000000000 0x1F 42U 7.0 1e-3 $L__BB0_2: /* a\ncomment */ .reg"),
            [
                F32Bits("0f3F800000"),
                F64Bits("0d3FF0000000000000"),
                Int("0x1F"),
                Int("42U"),
                Float("7.0"),
                Float("1e-3"),
                Ident("$L__BB0_2"),
                Colon,
                Dot(".reg"),
            ]
        );
    }

    #[test]
    fn errors_have_spans() {
        let (tokens, errors) = tokenize("add # ## \"open\nx /* never closed");
        assert_eq!(tokens.iter().map(|t| t.0).collect::<Vec<_>>(), [Token::Ident("add"), Token::Str("\"open"), Token::Ident("x")]);
        assert_eq!(
            errors,
            [
                (LexError::UnexpectedCharacter, Span::new(4, 5)),
                (LexError::UnexpectedCharacter, Span::new(6, 8)),
                (LexError::UnterminatedString, Span::new(9, 14)),
                (LexError::UnterminatedComment, Span::new(17, 32)),
            ]
        );
    }
}
