//! Units: byte sizes as users write them (`128m`, `8M`, `1.5g`, `64KiB`, `4096`), sizes and counts as
//! storebench prints them, and the one rate formula every figure uses. A leaf: it imports nothing of
//! storebench.
//!
//! Every suffix is binary, as in Hadoop: `1k` = 1,024 bytes, `1m` = 1,048,576 bytes. An optional `B` or
//! `iB` may follow the suffix (`8MB`, `8MiB`). Fractions are allowed when they give a whole number of
//! bytes (`1.5g` = 1,610,612,736).

/// The multipliers of the binary suffixes, in order of the letters `k m g t p e`.
const SUFFIXES: [(char, u32); 6] = [('k', 10), ('m', 20), ('g', 30), ('t', 40), ('p', 50), ('e', 60)];

/// What a valid size looks like, for error messages.
pub const SIZE_HELP: &str =
    "expected a number of bytes with an optional binary suffix k, m, g, t, p (e.g. 4096, 64k, 8m, 1.5g, 8MiB)";

/// Parses a size with a binary suffix into bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_size_with_default_unit(text, 0)
}

/// Parses a size; a bare number is multiplied by `2^default_shift` (cloudstore's `-block 8` means 8 MiB).
pub fn parse_size_with_default_unit(text: &str, default_shift: u32) -> Result<u64, String> {
    let bad = |why: &str| format!("invalid size '{text}': {why}");
    let t = text.trim();
    if t.is_empty() {
        return Err(bad(SIZE_HELP));
    }
    let lower = t.to_ascii_lowercase();
    let digits_end = lower.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(lower.len());
    let (number, unit) = lower.split_at(digits_end);
    if number.is_empty() {
        if lower.starts_with('-') {
            return Err(bad("sizes cannot be negative"));
        }
        return Err(bad(SIZE_HELP));
    }
    let shift = match unit {
        "" => default_shift,
        "b" => 0,
        _ => {
            let mut chars = unit.chars();
            let letter = chars.next().unwrap_or(' ');
            let rest: String = chars.collect();
            let Some(&(_, s)) = SUFFIXES.iter().find(|(c, _)| *c == letter) else {
                return Err(bad(SIZE_HELP));
            };
            if !(rest.is_empty() || rest == "b" || rest == "ib") {
                return Err(bad(SIZE_HELP));
            }
            s
        }
    };
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if frac_part.contains('.') || (int_part.is_empty() && frac_part.is_empty()) {
        return Err(bad(SIZE_HELP));
    }
    if frac_part.len() > 18 {
        return Err(bad("too many decimal places"));
    }
    let too_big = || bad("larger than 2^64-1 bytes");
    let int_value: u128 = if int_part.is_empty() { 0 } else { int_part.parse::<u128>().map_err(|_| too_big())? };
    let frac_value: u128 =
        if frac_part.is_empty() { 0 } else { frac_part.parse::<u128>().map_err(|_| bad(SIZE_HELP))? };
    let scale = 10u128.pow(frac_part.len() as u32);
    // value = (int + frac/scale) * 2^shift, computed exactly.
    let numerator = int_value
        .checked_mul(scale)
        .and_then(|v| v.checked_add(frac_value))
        .and_then(|v| v.checked_mul(1u128 << shift))
        .ok_or_else(too_big)?;
    if numerator % scale != 0 {
        return Err(bad("not a whole number of bytes"));
    }
    let bytes = numerator / scale;
    u64::try_from(bytes).map_err(|_| too_big())
}

/// Formats a byte count with thousands separators, as the seed prints `134,217,728`.
pub fn with_commas(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Formats a byte count in the largest binary unit that divides it, or with one decimal otherwise.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = "B";
    for u in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    if value.fract() == 0.0 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// Bytes in a MiB, the "MB" of cloudstore's figures.
pub const MIB: f64 = 1_048_576.0;
/// Bytes in a GiB.
pub const GIB: f64 = 1_073_741_824.0;

/// `amount / seconds`, or 0 when no time passed: every rate storebench prints goes through here.
pub fn per_second(amount: f64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        amount / seconds
    } else {
        0.0
    }
}

/// Throughput in MiB/s: `bytes / 2^20 / seconds`, or 0 when no time passed.
pub fn mib_per_s(bytes: f64, seconds: f64) -> f64 {
    per_second(bytes / MIB, seconds)
}

/// The longest `--duration`: 366 days.
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(366 * 24 * 3600);

/// Parses a duration as users write them (`30s`, `2m`, `1h`): longer than 0, at most [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    match humantime::parse_duration(s) {
        Ok(d) if d > MAX_DURATION => {
            Err(format!("invalid duration '{s}': at most {}", humantime::format_duration(MAX_DURATION)))
        }
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err(format!("invalid duration '{s}': must be longer than 0 (e.g. 30s, 2m)")),
        Err(e) => Err(format!("invalid duration '{s}': {e} (e.g. 30s, 2m, 1h)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_by_hand() {
        // 3 MiB in 2 s is 1.5 MiB/s; no time is no rate, not infinity.
        assert_eq!(mib_per_s(3.0 * 1_048_576.0, 2.0), 1.5);
        assert_eq!(mib_per_s(1.0, 0.0), 0.0);
        assert_eq!(per_second(10.0, 4.0), 2.5);
        assert_eq!(per_second(10.0, -1.0), 0.0);
    }

    #[test]
    fn binary_suffixes_as_hadoop() {
        assert_eq!(parse_size("128m").unwrap(), 134_217_728);
        assert_eq!(parse_size("8M").unwrap(), 8_388_608);
        assert_eq!(parse_size("1g").unwrap(), 1_073_741_824);
        assert_eq!(parse_size("64k").unwrap(), 65_536);
        assert_eq!(parse_size("1.5g").unwrap(), 1_610_612_736);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("8MB").unwrap(), 8_388_608);
        assert_eq!(parse_size("8MiB").unwrap(), 8_388_608);
        assert_eq!(parse_size("8mib").unwrap(), 8_388_608);
        assert_eq!(parse_size("100B").unwrap(), 100);
        assert_eq!(parse_size("1t").unwrap(), 1u64 << 40);
        assert_eq!(parse_size(".5k").unwrap(), 512);
        assert_eq!(parse_size("0").unwrap(), 0);
    }

    #[test]
    fn default_unit_for_cloudstore_block() {
        assert_eq!(parse_size_with_default_unit("8", 20).unwrap(), 8_388_608);
        assert_eq!(parse_size_with_default_unit("64k", 20).unwrap(), 65_536);
    }

    #[test]
    fn rejects_bad_sizes_naming_the_value() {
        for bad in ["", "x", "12x", "1.2.3", "-5", "5q", "1kk", "1mbx", "."] {
            let err = parse_size(bad).unwrap_err();
            assert!(err.contains(&format!("'{bad}'")), "{err}");
        }
        assert!(parse_size("0.3k").unwrap_err().contains("whole number"));
        assert!(parse_size("16e").unwrap_err().contains("2^64"));
        assert!(parse_size("99999999999999999999999").unwrap_err().contains("2^64"));
    }

    #[test]
    fn formats() {
        assert_eq!(with_commas(134_217_728), "134,217,728");
        assert_eq!(with_commas(0), "0");
        assert_eq!(with_commas(999), "999");
        assert_eq!(with_commas(1000), "1,000");
        assert_eq!(human_bytes(8_388_608), "8 MiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(10), "10 B");
    }
}
