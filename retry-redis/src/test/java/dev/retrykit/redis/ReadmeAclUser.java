package dev.retrykit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.RedisURI;

/**
 * The Redis ACL user that the README gives for prefix {@code retrykit}: its {@code ACL SETUSER} line is
 * read from the README itself, so the tests check the line users copy.
 */
final class ReadmeAclUser {

	private static final String LINE_START = "ACL SETUSER retrykit ";

	private final List<String> arguments;

	private final String password;

	private final String name;

	/** The README's user with {@code retrykit} replaced by {@code prefix} (the user's name included). */
	ReadmeAclUser(String prefix) {
		List<String> line = Arrays.stream(readmeLine().split(" ")).map(token -> token.replace("retrykit", prefix)).toList();
		this.arguments = line;
		this.name = line.get(2);
		this.password = line.stream().filter(token -> token.startsWith(">")).findFirst()
			.orElseThrow(() -> new IllegalStateException("The README's ACL line sets no password")).substring(1);
	}

	static String readmeLine() {
		Path readme = Path.of("..", "README.md");
		try {
			return Files.readAllLines(readme).stream().filter(line -> line.startsWith(LINE_START)).findFirst()
				.orElseThrow(() -> new IllegalStateException("No line starting with '" + LINE_START + "' in " + readme.toAbsolutePath()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Creates (or resets) the user on the server, with {@code redis-cli}, as the default user. */
	ReadmeAclUser create(RedisTestServer redis) {
		redis.cli(this.arguments.toArray(String[]::new));
		return this;
	}

	/** @return the server's address with this user's credentials */
	RedisURI uri(RedisTestServer redis) {
		return RedisURI.builder().withHost("127.0.0.1").withPort(redis.port()).withAuthentication(this.name, this.password)
			.build();
	}

	String name() {
		return this.name;
	}

}
