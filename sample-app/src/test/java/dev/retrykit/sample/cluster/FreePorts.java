package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Blocks of free TCP ports on 127.0.0.1, so that tests never take the sample's fixed ports (5701-5703). */
final class FreePorts {

	private FreePorts() {
	}

	/**
	 * @param count how many consecutive ports
	 * @return the first of {@code count} consecutive ports that are free now
	 */
	static int block(int count) {
		for (int tries = 0; tries < 100; tries++) {
			int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
			if (free(base, count)) {
				return base;
			}
		}
		throw new IllegalStateException("No block of " + count + " free ports on 127.0.0.1");
	}

	private static boolean free(int base, int count) {
		for (int port = base; port < base + count; port++) {
			try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
				socket.setReuseAddress(true);
			}
			catch (IOException ex) {
				return false;
			}
		}
		return true;
	}

}
