package dev.retrykit.migrate;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarOutputStream;

import org.openrewrite.ExecutionContext;
import org.openrewrite.InMemoryExecutionContext;
import org.openrewrite.maven.MavenExecutionContextView;
import org.openrewrite.maven.tree.MavenRepository;

/**
 * A Maven repository in a folder that holds retrykit's starter in the version the recipes add: OpenRewrite resolves
 * every dependency a recipe adds to a pom, and this module's tests do not publish the starter anywhere they can see.
 * It holds the starter without dependencies of its own (the tests check the build files, not the starter's tree).
 */
final class StarterRepository {

	private static final Path ROOT = create();

	private StarterRepository() {
	}

	/** @return an execution context whose Maven resolution also looks in the folder (and fails the test on an error) */
	static ExecutionContext context() {
		ExecutionContext context = new InMemoryExecutionContext((failure) -> {
			throw new AssertionError(failure);
		});
		MavenExecutionContextView.view(context).setRepositories(List.of(repository()));
		return context;
	}

	/** @return the folder as a Maven repository */
	static MavenRepository repository() {
		return MavenRepository.builder().id("retrykit-starter").uri(ROOT.toUri().toString()).releases(true).snapshots(true)
			.knownToExist(true).build();
	}

	private static Path create() {
		String version = DependenciesToRetrykitStarter.retrykitVersion();
		try {
			Path root = Files.createTempDirectory("retrykit-starter-repository");
			Path folder = Files.createDirectories(root.resolve("dev/retrykit/retry-spring-boot-starter").resolve(version));
			String name = "retry-spring-boot-starter-" + version;
			Files.writeString(folder.resolve(name + ".pom"), """
					<project>
					  <modelVersion>4.0.0</modelVersion>
					  <groupId>dev.retrykit</groupId>
					  <artifactId>retry-spring-boot-starter</artifactId>
					  <version>%s</version>
					</project>
					""".formatted(version));
			try (OutputStream jar = new JarOutputStream(Files.newOutputStream(folder.resolve(name + ".jar")))) {
				jar.flush();
			}
			root.toFile().deleteOnExit();
			return root;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
