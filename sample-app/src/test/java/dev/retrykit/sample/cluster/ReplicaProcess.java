package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One replica of the sample, run from its built jar as a separate process on 127.0.0.1, as an operator
 * runs it: started, frozen with {@code SIGSTOP}, thawed with {@code SIGCONT}, killed with {@code SIGKILL}.
 * Its output goes to a log file under {@code target/cluster-faults}.
 */
public final class ReplicaProcess implements AutoCloseable {

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	/** The replica's name, for its log file. */
	public final String name;

	/** Its HTTP port on 127.0.0.1. */
	public final int port;

	private final Process process;

	/** Its log file. */
	public final Path log;

	private ReplicaProcess(String name, int port, Process process, Path log) {
		this.name = name;
		this.port = port;
		this.process = process;
		this.log = log;
	}

	/**
	 * @param jar the sample's executable jar
	 * @param name the replica's name, for its log file
	 * @param arguments more application arguments
	 * @return the started process (not yet serving)
	 */
	public static ReplicaProcess start(Path jar, String name, String... arguments) throws IOException {
		return start(jar, Path.of("target", "cluster-faults"), name, arguments);
	}

	/**
	 * @param jar the sample's executable jar
	 * @param logs the directory of its log file
	 * @param name the replica's name, for its log file
	 * @param arguments more application arguments
	 * @return the started process (not yet serving)
	 */
	public static ReplicaProcess start(Path jar, Path logs, String name, String... arguments) throws IOException {
		int port = freePort();
		Files.createDirectories(logs);
		Path log = logs.resolve(name + ".log");
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Xmx384m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(), "--server.port=" + port,
				"--server.address=127.0.0.1", "--spring.main.banner-mode=off"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new ReplicaProcess(name, port, process, log);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	long pid() {
		return this.process.pid();
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	public HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return HTTP.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	HttpResponse<String> post(String path) throws IOException, InterruptedException {
		return HTTP.send(request(path).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
		return HTTP.send(request(path).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path)).timeout(Duration.ofSeconds(20));
	}

	/** @return the response's body, or {@code null} while the replica does not answer */
	public String bodyOrNull(String path) {
		try {
			HttpResponse<String> response = get(path);
			return (response.statusCode() == 200) ? response.body() : null;
		}
		catch (IOException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	void freeze() throws IOException, InterruptedException {
		signal("STOP");
	}

	void thaw() throws IOException, InterruptedException {
		signal("CONT");
	}

	/** Kills the process with SIGKILL, as a crashed machine or the OOM killer ends it. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor(30, TimeUnit.SECONDS);
	}

	private void signal(String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).inheritIO().start();
		if (kill.waitFor() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
		}
	}

	@Override
	public void close() throws Exception {
		if (this.process.isAlive()) {
			signal("CONT");
			kill();
		}
	}

	/**
	 * Waits until {@code condition} holds, checking every 100 ms.
	 * @throws AssertionError naming {@code what} if it does not hold within {@code timeout}
	 */
	public static void await(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out after " + timeout + " waiting until " + what);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
		}
	}

	@Override
	public String toString() {
		return this.name + "(pid " + this.process.pid() + ", port " + this.port + ")";
	}

}
