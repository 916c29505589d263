package dev.retrykit.testing.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * A real {@code redis-server} (the Debian package's binary, found on the {@code PATH}) run as a child
 * process on a free port of 127.0.0.1, without persistence, for tests: started by the constructor,
 * stopped by {@link #close()}, and, for fault tests, killed with SIGKILL and started again on the same
 * port, or frozen with SIGSTOP and thawed with SIGCONT. Not thread-safe: one test drives it.
 */
public final class RedisTestServer implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

	/**
	 * How many free ports are tried: a port is free when it is picked, and another process may bind it before
	 * {@code redis-server} does; the server then exits saying so, and the next free port is tried.
	 */
	static final int PORT_TRIES = 5;

	private final int port;

	private final Path directory;

	private Process process;

	/** Kills the server if the test JVM ends without {@link #close()} (a crash, a forked JVM killed by a timeout). */
	private final Thread killOnExit = new Thread(() -> this.process.destroyForcibly(), "redis-test-server-kill");

	/**
	 * Starts a server on a free port.
	 * @throws IllegalStateException if {@code redis-server} is not installed or does not answer
	 */
	public RedisTestServer() {
		this(RedisTestServer::freePort);
	}

	/**
	 * Starts a server on the first port of a source that {@code redis-server} can bind, trying up to
	 * {@value #PORT_TRIES}.
	 * @param ports the ports to try, each picked free
	 */
	RedisTestServer(IntSupplier ports) {
		try {
			this.directory = Files.createTempDirectory("retrykit-redis");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Integer> taken = new ArrayList<>();
		int candidate = ports.getAsInt();
		Optional<Process> started = start(candidate);
		while (started.isEmpty()) {
			taken.add(candidate);
			if (taken.size() == PORT_TRIES) {
				throw new IllegalStateException("redis-server could bind none of the free ports " + taken
						+ ": each was taken by another process first");
			}
			candidate = ports.getAsInt();
			started = start(candidate);
		}
		this.port = candidate;
		this.process = started.get();
		Runtime.getRuntime().addShutdownHook(this.killOnExit);
	}

	/** @return the port the server listens on, on 127.0.0.1 */
	public int port() {
		return this.port;
	}

	/** @return {@code redis://127.0.0.1:<port>} */
	public String uri() {
		return "redis://127.0.0.1:" + this.port;
	}

	/** @return the server process's id */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Runs one command with {@code redis-cli} as the default user, as an operator would.
	 * @param arguments the command and its arguments, each passed as one argument
	 * @return what {@code redis-cli} printed, without the last line break
	 * @throws IllegalStateException if {@code redis-cli} is missing, fails or takes longer than 10 seconds
	 */
	public String cli(String... arguments) {
		List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(this.port)));
		command.addAll(List.of(arguments));
		try {
			Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output = cli.getInputStream().readAllBytes();
			if (!cli.waitFor(10, TimeUnit.SECONDS) || cli.exitValue() != 0) {
				throw new IllegalStateException("redis-cli " + String.join(" ", arguments) + " failed: "
						+ new String(output, StandardCharsets.UTF_8));
			}
			return new String(output, StandardCharsets.UTF_8).stripTrailing();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run redis-cli (install it with: apt-get install -y redis-tools)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Kills the server with SIGKILL, losing everything it held, and waits until it is gone. */
	public void kill() {
		this.process.destroyForcibly();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("redis-server " + pid() + " survived SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Starts the server again on the same port, empty, after {@link #kill()}. */
	public void restart() {
		if (this.process.isAlive()) {
			throw new IllegalStateException("redis-server " + pid() + " is still running");
		}
		this.process = start(this.port).orElseThrow(() -> new IllegalStateException(
				"redis-server cannot start again on port " + this.port + ": another process took it after the kill: " + log()));
	}

	/** Freezes the server with SIGSTOP: it keeps its connections but answers nothing. */
	public void freeze() {
		signal("STOP");
	}

	/** Thaws a server frozen by {@link #freeze()} with SIGCONT. */
	public void thaw() {
		signal("CONT");
	}

	/** Stops the server (thawing it first, if frozen) and deletes its directory. */
	@Override
	public void close() {
		try {
			Runtime.getRuntime().removeShutdownHook(this.killOnExit);
		}
		catch (IllegalStateException ex) {
			// The JVM is already shutting down: the hook kills the server.
		}
		if (this.process.isAlive()) {
			signal("CONT");
			kill();
		}
		try (var files = Files.list(this.directory)) {
			for (Path file : (Iterable<Path>) files::iterator) {
				Files.deleteIfExists(file);
			}
			Files.deleteIfExists(this.directory);
		}
		catch (IOException ex) {
			// A temporary directory left behind is no test failure.
		}
	}

	/**
	 * Runs {@code redis-server} on a port and waits until it answers there as itself.
	 * @param port the port
	 * @return the server's process, or nothing when another process holds the port
	 */
	private Optional<Process> start(int port) {
		List<String> command = List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", this.directory.toString(), "--protected-mode", "yes",
				"--loglevel", "warning");
		Process started;
		try {
			started = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("redis.log").toFile()).start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run redis-server (install it with: apt-get install -y redis-server)", ex);
		}
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (!answersAs(port, started.pid())) {
			if (!started.isAlive()) {
				String log = log();
				if (log.contains("Address already in use")) {
					return Optional.empty();
				}
				throw new IllegalStateException("redis-server exited before answering on port " + port + ": " + log);
			}
			if (System.nanoTime() - deadline > 0) {
				started.destroyForcibly();
				throw new IllegalStateException("redis-server did not answer on port " + port + ": " + log());
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}
		return Optional.of(started);
	}

	/**
	 * {@return whether the server on a port is the process given: its {@code INFO server} names that process, so
	 * that another server holding the port is never taken for this one}
	 */
	private static boolean answersAs(int port, long pid) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			// A bulk string: "$<length>\r\n", the text, "\r\n".
			StringBuilder header = new StringBuilder();
			for (int read = in.read(); read != '\n'; read = in.read()) {
				if (read < 0) {
					return false;
				}
				header.append((char) read);
			}
			if (header.charAt(0) != '$') {
				return false;
			}
			int length = Integer.parseInt(header.substring(1).strip());
			String info = new String(in.readNBytes(length), StandardCharsets.US_ASCII);
			return info.contains("\r\nprocess_id:" + pid + "\r\n");
		}
		catch (IOException | RuntimeException ex) {
			return false;
		}
	}

	private String log() {
		try {
			return Files.readString(this.directory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	private void signal(String name) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** {@return a port of 127.0.0.1 that no socket holds now} */
	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String toString() {
		return "RedisTestServer[port=" + this.port + ", pid=" + pid() + "]";
	}

}
