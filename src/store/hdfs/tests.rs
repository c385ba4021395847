use super::*;

#[test]
fn names_the_namenode() {
    let mut c = StoreConfig::default();
    c.add_definitions(&[
        "dfs.nameservices=ns1".into(),
        "dfs.ha.namenodes.ns1=nn1,nn2".into(),
        "dfs.namenode.rpc-address.ns1.nn1=10.0.0.1:4007".into(),
        "dfs.namenode.rpc-address.ns1.nn2=10.0.0.2:4007".into(),
    ])
    .unwrap();
    let (shown, addrs) = namenodes("ns1", &c);
    assert_eq!(shown, "nameservice ns1 (nn1=10.0.0.1:4007, nn2=10.0.0.2:4007)");
    assert_eq!(addrs, ["10.0.0.1:4007", "10.0.0.2:4007"]);
    assert_eq!(namenodes("nn:9000", &c).0, "the NameNode at nn:9000");
    assert_eq!(namenodes("nn", &c), ("the NameNode at nn:8020".to_string(), vec!["nn:8020".to_string()]));
}

#[test]
fn java_errors_become_one_line() {
    let e = map_err(
        "create",
        "hdfs://nn/x",
        "the NameNode at nn:9000",
        HdfsError::RPCError(
            "org.apache.hadoop.hdfs.server.namenode.SafeModeException".into(),
            "Cannot create file/x. Name node is in safe mode.\nIt was turned on manually.".into(),
        ),
    );
    let s = e.to_string();
    assert!(s.contains("safe mode") && !s.contains('\n'), "{s}");
    let e = map_err(
        "create",
        "hdfs://nn/x",
        "n",
        HdfsError::RPCError(
            "org.apache.hadoop.security.AccessControlException".into(),
            "Permission denied: user=nobody, access=WRITE, inode=\"/\":root:supergroup:drwxr-xr-x".into(),
        ),
    );
    assert!(matches!(e, StoreError::PermissionDenied { .. }), "{e}");
    let e = map_err(
        "stat",
        "hdfs://nn/x",
        "the NameNode at 127.0.0.1:1",
        HdfsError::IOError(std::io::Error::from(std::io::ErrorKind::ConnectionRefused)),
    );
    assert!(e.to_string().contains("cannot reach the NameNode at 127.0.0.1:1"), "{e}");
}
