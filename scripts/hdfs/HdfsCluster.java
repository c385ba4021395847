// A real HDFS for storebench's tests and benchmarks: Hadoop's own MiniDFSCluster (a NameNode and N
// DataNodes in one JVM, the same classes a production cluster runs), bound to 127.0.0.1 only.
//
//   java -cp 'LIB/*:CLASSES' HdfsCluster --dir DIR --datanodes N --conf-out FILE [--port P] [--control]
//
// When the cluster is up, the client configuration is written to FILE (renamed into place, so the file
// appearing means "ready") and "ready hdfs://127.0.0.1:PORT" is printed. With --control, commands are
// read from stdin, one per line, each answered with one line ("ok ..." or "error ..."):
//   stop-datanode I        stops DataNode I (0-based), as a crash would, and says its transfer port
//   datanodes              lists the live DataNodes' transfer ports
//   safemode enter|leave   puts the NameNode into or out of safe mode
//   quit                   shuts the cluster down
// Without --control the cluster runs until killed. End of input on stdin also shuts it down (the test
// that started it is gone).
import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.server.datanode.DataNode;

public class HdfsCluster {
    public static void main(String[] args) throws Exception {
        String dir = null, confOut = null;
        int datanodes = 1, port = 0;
        boolean control = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir": dir = args[++i]; break;
                case "--conf-out": confOut = args[++i]; break;
                case "--datanodes": datanodes = Integer.parseInt(args[++i]); break;
                case "--port": port = Integer.parseInt(args[++i]); break;
                case "--control": control = true; break;
                default:
                    System.err.println("unknown argument " + args[i]);
                    System.exit(2);
            }
        }
        if (dir == null || confOut == null) {
            System.err.println("usage: HdfsCluster --dir DIR --conf-out FILE [--datanodes N] [--port P] [--control]");
            System.exit(2);
        }

        Configuration conf = new Configuration();
        conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
        conf.set("dfs.namenode.http-address", "127.0.0.1:0");
        conf.set("dfs.datanode.address", "127.0.0.1:0");
        conf.set("dfs.datanode.http.address", "127.0.0.1:0");
        conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
        conf.setInt("dfs.replication", Math.min(datanodes, 3));
        // Small blocks for tests (Hadoop's floor is 1 MiB), and a dead DataNode noticed in seconds.
        conf.setLong("dfs.namenode.fs-limits.min-block-size", 4096);
        conf.setLong("dfs.heartbeat.interval", 1);
        conf.setInt("dfs.namenode.heartbeat.recheck-interval", 2000);
        conf.setBoolean("dfs.permissions.enabled", true);

        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, new File(dir))
                .numDataNodes(datanodes)
                .nameNodePort(port)
                .format(true)
                .build();
        cluster.waitActive();
        int nnPort = cluster.getNameNodePort();
        String url = "hdfs://127.0.0.1:" + nnPort;
        Configuration out = new Configuration(cluster.getConfiguration(0));
        out.set("fs.defaultFS", url);
        File tmp = new File(confOut + ".tmp");
        try (OutputStream o = new FileOutputStream(tmp)) {
            out.writeXml(o);
        }
        Files.move(tmp.toPath(), new File(confOut).toPath(), StandardCopyOption.ATOMIC_MOVE);
        System.out.println("ready " + url);
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        if (!control) {
            Thread.currentThread().join();
        }
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split("\\s+");
            try {
                switch (w[0]) {
                    case "stop-datanode": {
                        int i = Integer.parseInt(w[1]);
                        int xfer = cluster.getDataNodes().get(i).getXferPort();
                        cluster.stopDataNode(i);
                        reply("ok stopped datanode " + i + " port " + xfer);
                        break;
                    }
                    case "datanodes": {
                        StringBuilder b = new StringBuilder("ok");
                        for (DataNode dn : cluster.getDataNodes()) {
                            b.append(' ').append(dn.getXferPort());
                        }
                        reply(b.toString());
                        break;
                    }
                    case "safemode": {
                        HdfsConstants.SafeModeAction a = w[1].equals("enter")
                                ? HdfsConstants.SafeModeAction.SAFEMODE_ENTER
                                : HdfsConstants.SafeModeAction.SAFEMODE_LEAVE;
                        cluster.getNameNodeRpc().setSafeMode(a, false);
                        reply("ok safemode " + w[1]);
                        break;
                    }
                    case "quit":
                        reply("ok bye");
                        System.exit(0);
                        break;
                    default:
                        reply("error unknown command " + w[0]);
                }
            } catch (Exception e) {
                reply("error " + e.toString().replace('\n', ' '));
            }
        }
        System.exit(0);
    }

    private static void reply(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
