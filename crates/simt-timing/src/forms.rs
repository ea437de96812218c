//! Names of MMA forms as machine configurations key them: the mnemonic's
//! modifiers after `MMA`, lowercase (`MMA.SP.M16N16K32.F32.F16` is
//! `sp.m16n16k32.f32.f16`). Derived from the instruction table, so a new MMA
//! row or type only needs configuration lines.

use simt_isa::{Form, TABLE, Unit};

/// The configuration key of an MMA form; `None` for a form that is not a tensor-core operation.
/// A `WGMMA`'s is `wgmma.` and its types (`wgmma.f32.f16`): where A comes from and what is
/// transposed do not change its rate. A `TCMMA`'s is `tcgen05.` and its kind (`tcgen05.f16`):
/// its shape and types are in its instruction descriptor, a register. An `MMA.SCALED`'s is
/// `scaled.` and its kind (`scaled.mxf8f6f4`): its kind fixes how many elements a register
/// holds, whichever types they are.
pub fn form_key(form: &Form) -> Option<String> {
    if let Some(kind) = form.tcmma() {
        return Some(format!("tcgen05.{kind}").to_ascii_lowercase());
    }
    if let Some((kind, ..)) = form.scaled_mma() {
        return Some(format!("scaled.{kind}").to_ascii_lowercase());
    }
    let mma = form.mma()?;
    if form.wgmma().is_some() {
        return Some(format!("wgmma.{}.{}", mma.acc, mma.input).to_ascii_lowercase());
    }
    let info = form.info();
    let indices = form.indices();
    let mut parts = Vec::new();
    // Indices are per group position, fixed spellings included.
    for (g, group) in info.groups.iter().enumerate() {
        let spelling = if group.is_fixed() { group.names[0] } else { group.spelling(indices[g]) };
        if !spelling.is_empty() {
            parts.push(spelling.to_ascii_lowercase());
        }
    }
    Some(parts.join("."))
}

/// Every MMA form the instruction set defines, by key, in table order.
pub fn known_forms() -> Vec<String> {
    known().into_iter().map(|(key, _)| key).collect()
}

/// Every MMA form the instruction set defines with its key, in table order (one form per key).
pub fn known() -> Vec<(String, Form)> {
    let mut out: Vec<(String, Form)> = Vec::new();
    for row in TABLE.iter().filter(|r| r.unit == Unit::Tensor) {
        let choices: Vec<usize> = row.groups.iter().map(|g| if g.is_fixed() { 1 } else { g.names.len() }).collect();
        let combos: usize = choices.iter().product();
        for mut n in 0..combos {
            let mut indices = [0u8; 4];
            for (i, &c) in choices.iter().enumerate() {
                indices[i] = (n % c) as u8;
                n /= c;
            }
            if let Some(form) = Form::from_indices(row.opcode, indices)
                && (form.mma().is_some() || form.tcmma().is_some())
                && form.is_defined()
                && let Some(key) = form_key(&form)
                && !out.iter().any(|(k, _)| *k == key)
            {
                out.push((key, form));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_like_the_mnemonic() {
        let known = known_forms();
        for key in ["m16n16k16.f32.f16", "m16n16k16.s32.s8", "m16n8k16.f32.bf16", "sp.m16n16k32.f32.f16"] {
            assert!(known.iter().any(|k| k == key), "{key} in {known:?}");
        }
        assert!(!known.iter().any(|k| k == "m16n8k16.f16.bf16"), "undefined combinations are left out");
    }
}
