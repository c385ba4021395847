//! The ceilings a figure cannot pass: this host's memory bandwidth (a short memcpy probe at the start
//! of every command) and the speed of the network link to a remote store (/sys/class/net). Both are
//! taken outside the timed phases and timed themselves; the `impossible` finding reads them.

use crate::stats::probes::{LinkProbe, MemoryProbe};
use crate::store::Remote;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs, UdpSocket};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Bytes the memory probe copies from, larger than most CPUs' last-level cache per core.
const SOURCE: usize = 32 << 20;
/// Bytes per copy (and the destination each thread reuses, as a benchmark's block buffer).
const CHUNK: usize = 1 << 20;
/// Times each thread copies the whole source.
const PASSES: usize = 3;
/// Threads at most (one per usable core up to this).
const MAX_THREADS: usize = 8;
/// How long a name lookup for the link probe may take.
const RESOLVE_WAIT: Duration = Duration::from_secs(2);

static MEMORY: OnceLock<Option<MemoryProbe>> = OnceLock::new();

/// Measures this host's memory bandwidth once per process (later calls return the first figure):
/// one thread per usable core (at most 8) copies a 32 MiB source 1 MiB at a time into its own 1 MiB
/// buffer, three times over: the pattern of a benchmark reading data from memory into a block buffer.
/// About 30 ms and 32 MiB for that time.
pub fn measure_memory() -> Option<MemoryProbe> {
    *MEMORY.get_or_init(|| {
        let t0 = Instant::now();
        let threads = (super::usable_cores().unwrap_or(1) as usize).clamp(1, MAX_THREADS);
        // Filled with ones, not zeros: untouched zero pages all map one shared page, which copies faster
        // than memory can.
        let src = vec![1u8; SOURCE];
        let chunks = SOURCE / CHUNK;
        let start = Instant::now();
        std::thread::scope(|s| {
            for k in 0..threads {
                let src = &src;
                s.spawn(move || {
                    let mut dst = vec![1u8; CHUNK];
                    for _ in 0..PASSES {
                        for i in 0..chunks {
                            let j = (i + k * chunks / threads) % chunks;
                            dst.copy_from_slice(&src[j * CHUNK..(j + 1) * CHUNK]);
                            std::hint::black_box(&mut dst);
                        }
                    }
                });
            }
        });
        let secs = start.elapsed().as_secs_f64();
        let bytes = (threads * PASSES * SOURCE) as f64;
        (secs > 0.0).then(|| MemoryProbe {
            mib_per_s: crate::units::mib_per_s(bytes, secs),
            threads: threads as u32,
            probe_s: t0.elapsed().as_secs_f64(),
        })
    })
}

/// The memory probe's figure when [`measure_memory`] ran in this process.
pub fn memory() -> Option<MemoryProbe> {
    MEMORY.get().copied().flatten()
}

/// The link a remote store's bytes cross: the interface the kernel routes the endpoint through and
/// its speed. None for an endpoint on this host (loopback or one of its own addresses), when the name
/// does not resolve within 2 s, or when the interface does not report a speed (virtual ones often do
/// not).
pub fn link(remote: &Remote) -> Option<LinkProbe> {
    let t0 = Instant::now();
    let (endpoint, interface) = match remote {
        Remote::Service => ("the service's default endpoint".to_string(), default_route_interface()?),
        Remote::Host(host, port) => {
            let ip = resolve(host, *port)?;
            if ip.is_loopback() || ip.is_unspecified() {
                return None;
            }
            let sock = UdpSocket::bind(if ip.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }).ok()?;
            // A UDP connect sends nothing: it asks the kernel for the route and the source address.
            sock.connect(SocketAddr::new(ip, *port)).ok()?;
            let local = sock.local_addr().ok()?.ip();
            if local == ip {
                return None;
            }
            (format!("{host}:{port}"), interface_of(local)?)
        }
    };
    if interface == "lo" {
        return None;
    }
    let speed = std::fs::read_to_string(format!("/sys/class/net/{interface}/speed")).ok()?;
    let mbit_per_s = speed.trim().parse::<i64>().ok().filter(|&s| s > 0)? as u64;
    Some(LinkProbe { endpoint, interface, mbit_per_s, probe_s: t0.elapsed().as_secs_f64() })
}

/// The first address of `host`, looked up on a thread that may take at most [`RESOLVE_WAIT`].
fn resolve(host: &str, port: u16) -> Option<IpAddr> {
    if let Ok(ip) = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
        return Some(ip);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let name = host.to_string();
    std::thread::spawn(move || {
        let first = (name.as_str(), port).to_socket_addrs().ok().and_then(|mut a| a.next());
        let _ = tx.send(first);
    });
    rx.recv_timeout(RESOLVE_WAIT).ok().flatten().map(|a| a.ip())
}

/// The interface of the default route (/proc/net/route: destination 00000000).
fn default_route_interface() -> Option<String> {
    let table = std::fs::read_to_string("/proc/net/route").ok()?;
    default_route_in(&table)
}

/// The default route's interface in the text of /proc/net/route.
pub fn default_route_in(table: &str) -> Option<String> {
    table.lines().skip(1).find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() > 2 && f[1] == "00000000").then(|| f[0].to_string())
    })
}

/// The interface that holds a local address (getifaddrs).
fn interface_of(local: IpAddr) -> Option<String> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list we free below with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return None;
    }
    let mut found = None;
    let mut cur = list;
    while !cur.is_null() && found.is_none() {
        // SAFETY: `cur` is a node of the list getifaddrs returned, valid until freeifaddrs.
        let ifa = unsafe { &*cur };
        cur = ifa.ifa_next;
        if ifa.ifa_addr.is_null() || ifa.ifa_name.is_null() {
            continue;
        }
        // SAFETY: ifa_addr points to a sockaddr whose family says which struct it is.
        let addr = unsafe {
            match i32::from((*ifa.ifa_addr).sa_family) {
                libc::AF_INET => {
                    let a = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                    Some(IpAddr::from(u32::from_be(a.sin_addr.s_addr).to_be_bytes()))
                }
                libc::AF_INET6 => {
                    let a = &*(ifa.ifa_addr as *const libc::sockaddr_in6);
                    Some(IpAddr::from(a.sin6_addr.s6_addr))
                }
                _ => None,
            }
        };
        if addr == Some(local) {
            // SAFETY: ifa_name is a NUL-terminated string owned by the list.
            found = Some(unsafe { std::ffi::CStr::from_ptr(ifa.ifa_name) }.to_string_lossy().into_owned());
        }
    }
    // SAFETY: `list` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(list) };
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_probe_measures_once() {
        let first = measure_memory().expect("a figure");
        assert!(first.mib_per_s > 0.0 && first.threads >= 1 && first.probe_s > 0.0, "{first:?}");
        assert_eq!(memory(), Some(first), "the second call returns the first figure");
    }

    #[test]
    fn loopback_and_own_endpoints_have_no_link() {
        assert_eq!(link(&Remote::Host("127.0.0.1".into(), 9000)), None);
        assert_eq!(link(&Remote::Host("localhost".into(), 9000)), None);
        assert_eq!(link(&Remote::Host("[::1]".into(), 9000)), None);
    }

    #[test]
    fn the_default_route_from_the_route_table() {
        let table = "Iface\tDestination\tGateway\tFlags\n\
                     eth1\t0010A8C0\t00000000\t0001\n\
                     eth0\t00000000\t0110A8C0\t0003\n";
        assert_eq!(default_route_in(table).as_deref(), Some("eth0"));
        assert_eq!(default_route_in("Iface\tDestination\n"), None);
    }
}
