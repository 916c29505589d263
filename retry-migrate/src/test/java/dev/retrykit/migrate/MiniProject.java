package dev.retrykit.migrate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.openrewrite.ExecutionContext;
import org.openrewrite.InMemoryExecutionContext;
import org.openrewrite.LargeSourceSet;
import org.openrewrite.Recipe;
import org.openrewrite.Result;
import org.openrewrite.SourceFile;
import org.openrewrite.config.Environment;
import org.openrewrite.internal.InMemoryLargeSourceSet;
import org.openrewrite.java.JavaParser;
import org.openrewrite.yaml.YamlParser;

/**
 * A small application written for the end-to-end tests: its files as text by path ({@code src/main/java/...},
 * {@code src/main/resources/application.yml}), migrated by a recipe as the rewrite Maven plugin would, and compiled
 * into a class loader against the test's class path.
 */
final class MiniProject {

	private final Map<String, String> files;

	private MiniProject(Map<String, String> files) {
		this.files = files;
	}

	/** @return the project under {@code src/test/resources/e2e/<name>} */
	static MiniProject load(String name) {
		try {
			Path root = Paths.get(MiniProject.class.getResource("/e2e/" + name).toURI());
			Map<String, String> files = new LinkedHashMap<>();
			try (Stream<Path> paths = Files.walk(root)) {
				for (Path path : paths.filter(Files::isRegularFile).sorted().toList()) {
					files.put(root.relativize(path).toString().replace('\\', '/'), Files.readString(path));
				}
			}
			return new MiniProject(files);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * @param sources more Java sources by path (an API the project compiles against)
	 * @return this project with them
	 */
	MiniProject with(Map<String, String> sources) {
		Map<String, String> files = new LinkedHashMap<>(this.files);
		files.putAll(sources);
		return new MiniProject(files);
	}

	String file(String path) {
		return this.files.get(path);
	}

	/** @return the application's YAML configuration, or "" */
	String applicationYaml() {
		return this.files.getOrDefault("src/main/resources/application.yml", "");
	}

	/**
	 * @param recipeName a declarative recipe of {@code META-INF/rewrite/retrykit.yml}
	 * @param classpath the names of the jars the sources compile against (OpenRewrite's type attribution)
	 * @return the project after the recipe
	 */
	MiniProject migrate(String recipeName, String... classpath) {
		return migrate(recipeName, JavaParser.fromJavaVersion().classpath(classpath));
	}

	/**
	 * @param recipeName a declarative recipe of {@code META-INF/rewrite/retrykit.yml}
	 * @param parser the parser of the Java sources (with what they compile against)
	 * @return the project after the recipe
	 */
	MiniProject migrate(String recipeName, JavaParser.Builder<?, ?> parser) {
		ExecutionContext context = new InMemoryExecutionContext((failure) -> {
			throw new IllegalStateException(failure);
		});
		List<SourceFile> sources = new ArrayList<>();
		List<String> javaPaths = this.files.keySet().stream().filter((path) -> path.endsWith(".java")).toList();
		List<SourceFile> java = parser.build()
			.parse(context, javaPaths.stream().map(this.files::get).toArray(String[]::new)).toList();
		for (int i = 0; i < java.size(); i++) {
			sources.add(java.get(i).withSourcePath(Paths.get(javaPaths.get(i))));
		}
		this.files.forEach((path, text) -> {
			if (path.endsWith(".yml")) {
				sources.add(YamlParser.builder().build().parse(context, text).findFirst().orElseThrow().withSourcePath(Paths.get(path)));
			}
		});
		Recipe recipe = Environment.builder().scanRuntimeClasspath("dev.retrykit.migrate").build().activateRecipes(recipeName);
		LargeSourceSet set = new InMemoryLargeSourceSet(sources);
		Map<String, String> migrated = new LinkedHashMap<>(this.files);
		for (Result result : recipe.run(set, context).getChangeset().getAllResults()) {
			if (result.getAfter() != null) {
				migrated.put(result.getAfter().getSourcePath().toString().replace('\\', '/'), result.getAfter().printAll());
			}
		}
		return new MiniProject(migrated);
	}

	/**
	 * Compiles the Java sources.
	 * @param output an empty folder for the classes
	 * @return a class loader of the compiled application (its parent: the test's)
	 */
	ClassLoader compile(Path output) throws IOException {
		List<String> arguments = new ArrayList<>(List.of("-d", output.toString(), "-classpath", classpath(), "-parameters",
				"-proc:none", "-nowarn"));
		for (Map.Entry<String, String> file : this.files.entrySet()) {
			if (file.getKey().endsWith(".java")) {
				Path source = output.resolve("sources").resolve(file.getKey());
				Files.createDirectories(source.getParent());
				Files.writeString(source, file.getValue(), StandardCharsets.UTF_8);
				arguments.add(source.toString());
			}
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
		int status = compiler.run(null, null, errors, arguments.toArray(String[]::new));
		if (status != 0) {
			throw new IllegalStateException("the application does not compile:\n" + this.files + "\n" + errors);
		}
		return new URLClassLoader(new URL[] { output.toUri().toURL() }, MiniProject.class.getClassLoader());
	}

	/** The test's class path, read from the class loader (Surefire may hide it behind a manifest-only jar). */
	private static String classpath() {
		List<String> entries = new ArrayList<>();
		for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
			entries.add(entry);
		}
		String surefire = System.getProperty("surefire.test.class.path");
		if (surefire != null) {
			entries.add(0, surefire);
		}
		try {
			entries.add(Paths.get(Script.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
		return String.join(java.io.File.pathSeparator, entries);
	}

	@Override
	public String toString() {
		return String.join("\n", this.files.keySet());
	}

}
