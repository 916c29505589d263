package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.jayway.jsonpath.JsonPath;

/**
 * One replica of the sample, the built jar run as a separate JVM with the {@code cluster} profile, its output in
 * a log file. It can be frozen ({@code SIGSTOP}), resumed ({@code SIGCONT}) and killed ({@code SIGKILL}).
 */
final class SampleReplica implements AutoCloseable {

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	final String name;

	final int port;

	private final Process process;

	final Path log;

	private SampleReplica(String name, int port, Process process, Path log) {
		this.name = name;
		this.port = port;
		this.process = process;
		this.log = log;
	}

	/**
	 * @param jar the sample's executable jar
	 * @param name the replica's name, for its log file
	 * @param port its HTTP port
	 * @param logs where its log file goes
	 * @param arguments the application arguments besides the port
	 * @return the started process (not yet ready)
	 * @throws IOException if it cannot be started
	 */
	static SampleReplica start(Path jar, String name, int port, Path logs, List<String> jvmOptions,
			List<String> arguments) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions);
		command.add("-jar");
		command.add(jar.toString());
		command.add("--server.port=" + port);
		command.addAll(arguments);
		Files.createDirectories(logs);
		Path log = logs.resolve(name + ".log");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new SampleReplica(name, port, process, log);
	}

	HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return HTTP.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	HttpResponse<String> post(String path) throws IOException, InterruptedException {
		return HTTP.send(request(path).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path)).timeout(Duration.ofSeconds(20));
	}

	/**
	 * @return the replica's view of the cluster ({@code GET /actuator/retries}), or {@code null} while it does not
	 * answer
	 */
	ClusterView cluster() {
		try {
			HttpResponse<String> response = get("/actuator/retries");
			if (response.statusCode() != 200) {
				return null;
			}
			Integer members = JsonPath.read(response.body(), "$.cluster.members");
			Boolean reachable = JsonPath.read(response.body(), "$.cluster.reachable");
			return new ClusterView(members, reachable);
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	void freeze() throws IOException, InterruptedException {
		signal("STOP");
	}

	void resume() throws IOException, InterruptedException {
		signal("CONT");
	}

	/** {@code SIGKILL}: no shutdown hook runs, the member leaves without a word. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly().waitFor();
	}

	private void signal(String signal) throws IOException, InterruptedException {
		int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).inheritIO().start()
			.waitFor();
		if (exit != 0) {
			throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " exited with " + exit);
		}
	}

	/** Resumes a frozen replica (a stopped process ignores everything but SIGCONT and SIGKILL) and kills it. */
	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			try {
				signal("CONT");
			}
			catch (IOException | RuntimeException ex) {
				// SIGKILL ends it all the same.
			}
			this.process.destroyForcibly().waitFor();
		}
	}

	@Override
	public String toString() {
		return this.name + " (pid " + this.process.pid() + ", port " + this.port + ", log " + this.log + ")";
	}

	/**
	 * @param members the members the replica's engine sees
	 * @param reachable whether it reaches the engine
	 */
	record ClusterView(int members, boolean reachable) {
	}

}
