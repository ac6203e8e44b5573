//! The editor's frames as they arrive, read within bounds: `Content-Length` headers,
//! a blank line, then that many bytes of body.
//!
//! What a frame claims is never allocated before it is checked: a body larger than
//! the limit (the largest document the linter parses) is refused, and so is a header
//! that cannot be read. Either way the reader then finds the next frame itself: it
//! skips ahead to the next `Content-Length:` it sees, reading a little at a time and
//! keeping none of what it skips. A body that is valid JSON cannot hold that text
//! followed by a line end (JSON strings hold no raw line break), so only a real header
//! is taken for one; a lying length (`Content-Length: 4000000000` over a short body)
//! costs no more than an honest large frame.

use std::io::{self, BufRead};

/// The longest header line read: headers are a few dozen bytes.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// The header every frame carries, as the search for the next frame looks for it.
const LENGTH_HEADER: &[u8] = b"content-length:";

/// One frame read.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// Its body, at most the limit.
    Body(Vec<u8>),
    /// A frame that could not be read, skipped up to the next one.
    Refused(Refused),
}

/// Why a frame was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Its `Content-Length` is larger than the limit.
    TooLarge {
        /// What it claimed.
        claimed: u64,
        /// The most the server reads.
        limit: usize,
    },
    /// A header line that is not `Name: value`, too long, or a `Content-Length` that is
    /// not a number.
    BadHeader(String),
    /// Headers without a `Content-Length`.
    NoLength,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::TooLarge { claimed, limit } => write!(
                f,
                "a message of {claimed} bytes is larger than {}, the largest the server reads; skipped",
                crate::load::size(*limit as u64)
            ),
            Refused::BadHeader(header) => {
                write!(
                    f,
                    "malformed header {header:?}; skipped to the next message"
                )
            }
            Refused::NoLength => {
                write!(
                    f,
                    "a message without Content-Length; skipped to the next one"
                )
            }
        }
    }
}

/// One line of the headers.
enum Line {
    Text(Vec<u8>),
    TooLong,
    End,
}

/// Reads frames from `input`, each body at most `max_body` bytes.
pub struct Frames<R> {
    input: R,
    max_body: usize,
    /// A header line the search for the next frame found.
    found: Option<Vec<u8>>,
    /// Whether the input is to be skipped up to the next frame before it is read: a
    /// frame was refused. Skipped when the next frame is asked for, so that the refusal
    /// is answered before the reader waits for more input.
    skip: bool,
}

impl<R: BufRead> Frames<R> {
    /// The frames of `input`.
    pub fn new(input: R, max_body: usize) -> Frames<R> {
        Frames {
            input,
            max_body,
            found: None,
            skip: false,
        }
    }

    /// The next frame; `None` at the end of the input (or in the middle of a frame).
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        if std::mem::take(&mut self.skip) {
            self.skip_to_next_frame()?;
        }
        let mut length: Option<u64> = None;
        let mut headers = 0usize;
        loop {
            let line = match self.found.take() {
                Some(line) => line,
                None => match self.line()? {
                    Line::Text(line) => line,
                    Line::End => return Ok(None),
                    Line::TooLong => {
                        return self.refuse(Refused::BadHeader(format!(
                            "a header line longer than {MAX_HEADER_LINE} bytes"
                        )));
                    }
                },
            };
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            if text.is_empty() {
                if headers == 0 {
                    // Blank lines between frames: nothing to read yet.
                    continue;
                }
                break;
            }
            headers += 1;
            let Some((name, value)) = text.split_once(':') else {
                return self.refuse(Refused::BadHeader(text.to_owned()));
            };
            if name.trim().eq_ignore_ascii_case("content-length") {
                match value.trim().parse::<u64>() {
                    Ok(claimed) => length = Some(claimed),
                    Err(_) => return self.refuse(Refused::BadHeader(text.to_owned())),
                }
            }
        }
        let Some(claimed) = length else {
            return self.refuse(Refused::NoLength);
        };
        if claimed > self.max_body as u64 {
            return self.refuse(Refused::TooLarge {
                claimed,
                limit: self.max_body,
            });
        }
        let mut body = vec![0; claimed as usize];
        match self.input.read_exact(&mut body) {
            Ok(()) => Ok(Some(Frame::Body(body))),
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// `why`; the input is skipped up to the next frame before that is read.
    fn refuse(&mut self, why: Refused) -> io::Result<Option<Frame>> {
        self.skip = true;
        Ok(Some(Frame::Refused(why)))
    }

    /// One header line, at most [`MAX_HEADER_LINE`] bytes; a line cut by the end of
    /// the input is the end.
    fn line(&mut self) -> io::Result<Line> {
        let mut line = Vec::new();
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                return Ok(Line::End);
            }
            let (take, complete) = match available.iter().position(|b| *b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if line.len() + take > MAX_HEADER_LINE {
                self.input.consume(take);
                return Ok(Line::TooLong);
            }
            line.extend_from_slice(&available[..take]);
            self.input.consume(take);
            if complete {
                return Ok(Line::Text(line));
            }
        }
    }

    /// Skips the input up to the next `Content-Length:` (in any case), which becomes
    /// the first header line of the next frame; to the end when there is none.
    fn skip_to_next_frame(&mut self) -> io::Result<()> {
        loop {
            let mut matched = 0;
            loop {
                let available = match self.input.fill_buf() {
                    Ok(available) => available,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => return Err(error),
                };
                if available.is_empty() {
                    return Ok(());
                }
                let mut end = None;
                for (at, byte) in available.iter().enumerate() {
                    let byte = byte.to_ascii_lowercase();
                    if byte == LENGTH_HEADER[matched] {
                        matched += 1;
                        if matched == LENGTH_HEADER.len() {
                            end = Some(at + 1);
                            break;
                        }
                    } else {
                        // The header's first byte appears in it only there.
                        matched = usize::from(byte == LENGTH_HEADER[0]);
                    }
                }
                match end {
                    Some(end) => {
                        self.input.consume(end);
                        break;
                    }
                    None => {
                        let all = available.len();
                        self.input.consume(all);
                    }
                }
            }
            match self.line()? {
                Line::Text(rest) => {
                    let mut line = b"Content-Length:".to_vec();
                    line.extend_from_slice(&rest);
                    self.found = Some(line);
                    return Ok(());
                }
                Line::End => return Ok(()),
                // Not a header after all: look further.
                Line::TooLong => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut frames = Frames::new(input, max);
        let mut all = Vec::new();
        while let Some(frame) = frames.next_frame().unwrap() {
            all.push(frame);
        }
        all
    }

    fn body(text: &str) -> Frame {
        Frame::Body(text.as_bytes().to_vec())
    }

    #[test]
    fn frames_are_read_whatever_their_headers_case_and_order() {
        let input = b"Content-Length: 2\r\n\r\n{}content-length: 4\r\nContent-Type: x\r\n\r\n[1,2]";
        assert_eq!(frames(input, 100), [body("{}"), body("[1,2")]);
    }

    #[test]
    fn a_frame_larger_than_the_limit_is_refused_and_the_next_one_read() {
        let input = b"Content-Length: 4000000000\r\n\r\n{\"a\":\"Content-Length\"}Content-Length: 2\r\n\r\n{}";
        assert_eq!(
            frames(input, 1000),
            [
                Frame::Refused(Refused::TooLarge {
                    claimed: 4_000_000_000,
                    limit: 1000
                }),
                body("{}")
            ]
        );
    }

    #[test]
    fn a_bad_header_is_refused_and_the_reader_finds_the_next_frame() {
        let input =
            b"Content-Lenght 2\r\n\r\n{}Content-Length: x\r\n\r\nContent-Length: 2\r\n\r\n{}";
        let read = frames(input, 100);
        assert_eq!(read.len(), 3, "{read:?}");
        assert!(matches!(read[0], Frame::Refused(Refused::BadHeader(_))));
        assert!(matches!(read[1], Frame::Refused(Refused::BadHeader(_))));
        assert_eq!(read[2], body("{}"));
        let long = [
            b"X-".as_slice(),
            &[b'a'; 20_000],
            b"\r\nContent-Length: 2\r\n\r\n{}",
        ]
        .concat();
        let read = frames(&long, 100);
        assert_eq!(read.len(), 2, "{read:?}");
        assert_eq!(read[1], body("{}"));
    }

    #[test]
    fn the_input_may_end_anywhere() {
        assert_eq!(frames(b"", 10), []);
        assert_eq!(frames(b"Content-Len", 10), []);
        assert_eq!(frames(b"Content-Length: 5\r\n\r\n{}", 10), []);
        assert_eq!(
            frames(b"Content-Length: 50\r\n\r\n{}", 10),
            [Frame::Refused(Refused::TooLarge {
                claimed: 50,
                limit: 10
            })]
        );
    }
}
