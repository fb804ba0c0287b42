//! A release host on loopback for the action's download path: files under a folder, served by
//! path over HTTP/1.1 (200 with the bytes, 404 for anything else), every request path recorded.
//! Every `Job` has one (empty unless a test publishes into it), so that no test reaches the
//! network. No assertion lives here.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub(crate) struct ReleaseServer {
    /// What is served: `DIR/v0.1.0/ASSET` answers `GET /v0.1.0/ASSET`.
    pub(crate) dir: PathBuf,
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ReleaseServer {
    pub(crate) fn start(dir: &Path) -> ReleaseServer {
        std::fs::create_dir_all(dir).expect("create the release folder");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("the bound address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (dir, requests, stop) = (dir.to_path_buf(), requests.clone(), stop.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(conn) = conn {
                        serve(conn, &dir, &requests);
                    }
                }
            })
        };
        ReleaseServer {
            dir: dir.to_path_buf(),
            addr,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// The download base the action is pointed at (`TRACELINT_DOWNLOAD_BASE`).
    pub(crate) fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The paths requested so far, in order.
    pub(crate) fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("the request log").clone()
    }
}

impl Drop for ReleaseServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answer one request on `conn` (one request per connection: `Connection: close`).
fn serve(mut conn: TcpStream, dir: &Path, requests: &Mutex<Vec<String>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.split_whitespace();
    let (Some(method), Some(path)) = (words.next(), words.next()) else {
        return;
    };
    requests
        .lock()
        .expect("the request log")
        .push(path.to_owned());
    let file = path
        .strip_prefix('/')
        .filter(|p| !p.split('/').any(|s| s.is_empty() || s == "." || s == ".."))
        .map(|p| dir.join(p))
        .filter(|p| p.is_file());
    let response = match (method, file) {
        ("GET", Some(file)) => {
            let body = std::fs::read(file).expect("read a served file");
            let mut r = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .into_bytes();
            r.extend_from_slice(&body);
            r
        }
        _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found"
            .to_vec(),
    };
    let _ = conn.write_all(&response);
    let _ = conn.flush();
}
