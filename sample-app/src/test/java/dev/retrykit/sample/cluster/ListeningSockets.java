package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The local addresses that TCP sockets listen on for a port, read from Linux's {@code /proc/net/tcp} and
 * {@code /proc/net/tcp6} (what {@code ss -ltn} shows): a socket bound to every interface shows as
 * {@code 0.0.0.0} or {@code ::}.
 */
final class ListeningSockets {

	private static final String LISTEN = "0A";

	private ListeningSockets() {
	}

	/** @return whether this system exposes its sockets in {@code /proc/net} */
	static boolean available() {
		return Files.isReadable(Path.of("/proc/net/tcp"));
	}

	/**
	 * @param port a TCP port
	 * @return the addresses that sockets listen on for it, on IPv4 and IPv6
	 * @throws IOException if {@code /proc/net} cannot be read
	 */
	static List<InetAddress> on(int port) throws IOException {
		List<InetAddress> addresses = new ArrayList<>();
		for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
			Path path = Path.of(table);
			if (!Files.isReadable(path)) {
				continue;
			}
			for (String line : Files.readAllLines(path)) {
				String[] fields = line.trim().split("\\s+");
				if (fields.length < 4 || !fields[3].equals(LISTEN)) {
					continue;
				}
				String[] local = fields[1].split(":");
				if (local.length == 2 && Integer.parseInt(local[1], 16) == port) {
					addresses.add(address(local[0]));
				}
			}
		}
		return addresses;
	}

	/** The kernel writes an address as 32-bit words in host order (little-endian here). */
	private static InetAddress address(String hex) throws UnknownHostException {
		byte[] raw = HexFormat.of().parseHex(hex);
		byte[] address = new byte[raw.length];
		for (int word = 0; word < raw.length; word += 4) {
			for (int i = 0; i < 4; i++) {
				address[word + i] = raw[word + 3 - i];
			}
		}
		return InetAddress.getByAddress(address);
	}

}
