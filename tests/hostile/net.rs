//! A loopback HTTP server for the `mcp-http:` cases that need a hostile server: redirects in a
//! loop, and a redirect to another host. It answers every request the same way, on a thread
//! that stops by itself after a few seconds.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

pub(crate) struct Server {
    port: u16,
}

impl Server {
    pub(crate) fn start(case: &'static str) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            let end = Instant::now() + Duration::from_secs(15);
            let mut n = 0u32;
            while Instant::now() < end && n < 100 {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                n += 1;
                stream.set_nonblocking(false).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(2)))
                    .unwrap();
                let mut reader = BufReader::new(&stream);
                let mut line = String::new();
                // The request head, then the body: closing a socket with unread bytes sends a
                // reset, which the client can see before it reads the redirect.
                let mut body = 0usize;
                while reader.read_line(&mut line).is_ok_and(|k| k > 2) {
                    if let Some((name, value)) = line.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        body = value.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let _ = std::io::Read::read_exact(&mut reader, &mut vec![0; body.min(1 << 20)]);
                let location = match case {
                    "mcp-http-redirect-loop" => format!("/mcp/{n}"),
                    _ => format!("http://127.0.0.2:{port}/mcp"),
                };
                let mut s = &stream;
                let _ = write!(
                    s,
                    "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
        });
        Server { port }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub(crate) fn port_text(&self) -> String {
        self.port.to_string()
    }
}
