//! Reading a file into text, and mapping byte offsets to 1-based rows and character columns.

use std::path::Path;

/// Why a file could not be turned into Python source text.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    Binary,
    NotUtf8 { valid_up_to: usize },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(err) => write!(f, "cannot read file: {err}"),
            ReadError::Binary => write!(
                f,
                "file looks binary (contains NUL bytes); not Python source"
            ),
            ReadError::NotUtf8 { valid_up_to } => {
                write!(
                    f,
                    "file is not valid UTF-8 (first invalid byte at offset {valid_up_to})"
                )
            }
        }
    }
}

pub fn read_source(path: &Path) -> Result<String, ReadError> {
    let bytes = std::fs::read(path).map_err(ReadError::Io)?;
    decode_source(bytes)
}

pub fn decode_source(mut bytes: Vec<u8>) -> Result<String, ReadError> {
    // A UTF-8 BOM is legal in Python source; drop it so offsets match what editors show.
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    if memchr_nul(&bytes) {
        return Err(ReadError::Binary);
    }
    String::from_utf8(bytes).map_err(|err| ReadError::NotUtf8 {
        valid_up_to: err.utf8_error().valid_up_to(),
    })
}

fn memchr_nul(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// Line starts of a source text, for offset → (row, column) conversion.
pub struct LineIndex {
    line_starts: Vec<u32>,
}

/// A 1-based row and 1-based column counted in characters (as ruff reports them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Location {
    pub row: u32,
    pub column: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        let bytes = text.as_bytes();
        // memchr skips the bytes between line ends a word at a time (every file is indexed, and
        // the byte-by-byte loop showed in profiles).
        let mut ends = memchr::memchr2_iter(b'\n', b'\r', bytes);
        while let Some(i) = ends.next() {
            // `\r\n` is one line end: the line starts after the `\n`.
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                ends.next();
                line_starts.push(i as u32 + 2);
            } else {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts }
    }

    /// 0-based line number containing `offset`.
    pub fn line_of(&self, offset: u32) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// The 1-based row of `offset` (the row of [`LineIndex::location`], without the column).
    pub fn row(&self, text: &str, offset: u32) -> u32 {
        self.line_of(offset.min(text.len() as u32)) as u32 + 1
    }

    pub fn location(&self, text: &str, offset: u32) -> Location {
        let offset = offset.min(text.len() as u32);
        let line = self.line_of(offset);
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).max(start);
        let column = text
            .get(start..end)
            .map_or(end - start, |prefix| prefix.chars().count());
        Location {
            row: line as u32 + 1,
            column: column as u32 + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    #[test]
    fn line_ends_of_every_kind_start_a_line() {
        // `\n`, `\r\n` (one end), a lone `\r`, an empty line and no end at the end of the text.
        let index = LineIndex::new("a\nbc\r\nd\re\n\nf");
        assert_eq!(index.line_starts, vec![0, 2, 6, 8, 10, 11]);
        assert_eq!(LineIndex::new("").line_starts, vec![0]);
        assert_eq!(LineIndex::new("\r\n").line_starts, vec![0, 2]);
        assert_eq!(LineIndex::new("x\r").line_starts, vec![0, 2]);
    }

    #[test]
    fn row_is_the_row_of_location_at_every_offset() {
        // Line ends of every kind, a multi-byte character, and offsets past the end (clamped).
        let text = "a\nbé\r\nd\re\n\nf";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() as u32 + 2 {
            assert_eq!(
                index.row(text, offset),
                index.location(text, offset).row,
                "{offset}"
            );
        }
    }
}
