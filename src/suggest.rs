//! "Did you mean …?": the closest known name to a misspelled one. A leaf utility used by R7,
//! tools-file and config validation; it knows nothing else.

/// The known name closest to `name`, when one is close enough to be a likely typo.
pub fn closest_name<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    names
        .map(|n| {
            let ln = n.to_lowercase();
            (
                n,
                strsim::damerau_levenshtein(&lower, &ln),
                strsim::jaro_winkler(&lower, &ln),
            )
        })
        .filter(|(n, d, jw)| {
            let len = n.chars().count().max(name.chars().count());
            *d <= (len / 3).max(1) || *jw >= 0.9
        })
        .min_by(|a, b| a.1.cmp(&b.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(b.0)))
        .map(|(n, _, _)| n)
}

#[cfg(test)]
mod tests {
    use super::closest_name;

    #[test]
    fn suggestions() {
        let names = ["read_file", "write_file", "get_weather"];
        assert_eq!(
            closest_name("redi_file", names.into_iter()),
            Some("read_file")
        );
        assert_eq!(
            closest_name("getWeather", names.into_iter()),
            Some("get_weather")
        );
        assert_eq!(closest_name("frobnicate", names.into_iter()), None);
    }
}
