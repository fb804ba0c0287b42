//! Timestamps as trace exports write them → nanoseconds since the Unix epoch, and back to one
//! canonical UTC RFC 3339 form (`2026-07-09T00:00:00.000000000Z`) whose text order is time
//! order. Owns only date arithmetic; knows nothing about any format's field names.

/// Nanoseconds in one second.
const NANOS: i128 = 1_000_000_000;

/// Parse an RFC 3339 / ISO 8601 date-time (`2025-12-22T10:46:19.155Z`,
/// `2026-07-09T00:00:00+00:00`, `2025-07-11 07:45:13.600000`; no offset means UTC) into
/// nanoseconds since the epoch.
pub fn parse_rfc3339(text: &str) -> Option<i128> {
    let s = text.trim().as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if s.get(4) != Some(&b'-') || s.get(7) != Some(&b'-') {
        return None;
    }
    let mut nanos = i128::from(days_from_civil(year, month, day)?) * 86_400 * NANOS;
    let mut i = 10;
    if matches!(s.get(i), Some(b'T' | b't' | b' ')) {
        let (h, m, sec) = (num(i + 1, 2)?, num(i + 4, 2)?, num(i + 7, 2)?);
        if s.get(i + 3) != Some(&b':') || s.get(i + 6) != Some(&b':') || h > 23 || m > 59 {
            return None;
        }
        nanos += i128::from(h * 3600 + m * 60 + sec.min(60)) * NANOS;
        i += 9;
        if s.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            let mut frac: i128 = 0;
            while let Some(d) = s.get(i).filter(|b| b.is_ascii_digit()) {
                if i - start < 9 {
                    frac = frac * 10 + i128::from(d - b'0');
                }
                i += 1;
            }
            if i == start {
                return None;
            }
            for _ in (i - start)..9 {
                frac *= 10;
            }
            nanos += frac;
        }
        match s.get(i) {
            None => {}
            Some(b'Z' | b'z') if i + 1 == s.len() => {}
            Some(sign @ (b'+' | b'-')) => {
                let oh = num(i + 1, 2)?;
                let om = match s.get(i + 3) {
                    Some(b':') => num(i + 4, 2)?,
                    _ => num(i + 3, 2).unwrap_or(0),
                };
                let offset = i128::from(oh * 3600 + om * 60) * NANOS;
                // A local time east of UTC is earlier in UTC.
                nanos += if *sign == b'+' { -offset } else { offset };
            }
            Some(_) => return None,
        }
    } else if i != s.len() {
        return None;
    }
    Some(nanos)
}

/// Parse an ISO 8601 duration of the simple form TRAIL writes (`PT0.125S`, `PT1M2.5S`, `PT2H`)
/// into nanoseconds.
pub fn parse_duration(text: &str) -> Option<i128> {
    let rest = text.trim().strip_prefix("PT")?;
    let mut total: i128 = 0;
    let mut number = String::new();
    for c in rest.chars() {
        match c {
            '0'..='9' | '.' => number.push(c),
            'H' | 'M' | 'S' => {
                let v: f64 = number.parse().ok()?;
                let unit = match c {
                    'H' => 3600.0,
                    'M' => 60.0,
                    _ => 1.0,
                };
                total += (v * unit * 1e9) as i128;
                number.clear();
            }
            _ => return None,
        }
    }
    number.is_empty().then_some(total)
}

/// Format nanoseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` (UTC).
pub fn format_rfc3339(nanos: i128) -> String {
    let secs = nanos.div_euclid(NANOS);
    let frac = nanos.rem_euclid(NANOS);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:09}Z",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> Option<i64> {
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shapes_exports_write() {
        let z = parse_rfc3339("2025-12-22T10:46:19.155Z").unwrap();
        assert_eq!(format_rfc3339(z), "2025-12-22T10:46:19.155000000Z");
        assert_eq!(
            parse_rfc3339("2026-07-09T02:00:00+02:00"),
            parse_rfc3339("2026-07-09T00:00:00Z")
        );
        assert_eq!(
            parse_rfc3339("2025-07-11 07:45:13.600000"),
            parse_rfc3339("2025-07-11T07:45:13.6Z")
        );
        // The OTLP example's start time, 1544712660 s.
        assert_eq!(
            parse_rfc3339("2018-12-13T14:51:00Z"),
            Some(1_544_712_660 * NANOS)
        );
        assert_eq!(parse_rfc3339("2024-02-29"), Some(19_782 * 86_400 * NANOS));
        for bad in [
            "",
            "yesterday",
            "2024-13-01T00:00:00Z",
            "2024-01-01T00:00:00Q",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn formatting_round_trips_and_sorts_as_text() {
        for n in [0i128, 1, 1_544_712_660_123_456_789, -1] {
            assert_eq!(parse_rfc3339(&format_rfc3339(n)), Some(n));
        }
        assert!(format_rfc3339(5) < format_rfc3339(1_000_000_000));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("PT0.125S"), Some(125_000_000));
        assert_eq!(parse_duration("PT1M2S"), Some(62 * NANOS));
        assert_eq!(parse_duration("P1D"), None);
    }
}
