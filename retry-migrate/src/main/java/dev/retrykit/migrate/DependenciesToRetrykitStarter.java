package dev.retrykit.migrate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.ScanningRecipe;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.xml.tree.Xml;

/**
 * Replaces a library's dependencies with retrykit's Spring Boot starter, and drops the AOP starter the library needed
 * when no code of the project uses AspectJ itself: in Maven poms ({@link MavenDependencyEdits}) and Gradle build
 * scripts, Groovy or Kotlin DSL ({@link GradleDependencyEdits}), each through OpenRewrite's own recipes for that build.
 *
 * <p>When Java code still uses the library after the migration (an annotation left with a note, an API the recipes
 * do not move), its dependencies stay and the starter is added beside them. Only a build's own dependencies are
 * changed; managed versions (dependency management, BOMs, platforms) and plugins are left alone.
 */
abstract class DependenciesToRetrykitStarter extends ScanningRecipe<DependenciesToRetrykitStarter.Usage> {

	static final String STARTER_GROUP = "dev.retrykit";

	static final String STARTER_ARTIFACT = "retry-spring-boot-starter";

	private static final Set<String> AOP_STARTERS = Set.of("spring-boot-starter-aop", "spring-boot-starter-aspectj");

	/** What the Java sources use. */
	static final class Usage {

		boolean libraryStays;

		boolean aspectJUsed;

	}

	/**
	 * @param groupId the library's group
	 * @param artifactId an artifact of the project's dependencies
	 * @return whether it is one of the library's artifacts that the starter replaces
	 */
	abstract boolean isLibrary(String groupId, String artifactId);

	/**
	 * @param java a Java source before the migration
	 * @return whether it will still use the library after the migration
	 */
	abstract boolean staysAfterMigration(JavaSourceFile java);

	@Override
	public Usage getInitialValue(ExecutionContext context) {
		return new Usage();
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getScanner(Usage usage) {
		return new TreeVisitor<>() {
			@Override
			public @Nullable Tree visit(@Nullable Tree tree, ExecutionContext context) {
				if (tree instanceof JavaSourceFile java && !GradleDependencyEdits.isBuildScript(java)) {
					usage.libraryStays |= staysAfterMigration(java);
					for (JavaType type : java.getTypesInUse().getTypesInUse()) {
						if (type instanceof JavaType.FullyQualified named && named.getFullyQualifiedName().startsWith("org.aspectj.")) {
							usage.aspectJUsed = true;
						}
					}
				}
				return tree;
			}
		};
	}

	@Override
	public TreeVisitor<?, ExecutionContext> getVisitor(Usage usage) {
		return new TreeVisitor<>() {
			@Override
			public @Nullable Tree visit(@Nullable Tree tree, ExecutionContext context) {
				if (tree instanceof Xml.Document pom && pom.getSourcePath().toString().endsWith("pom.xml")) {
					return MavenDependencyEdits.edit(pom, DependenciesToRetrykitStarter.this, usage, context);
				}
				if (tree instanceof JavaSourceFile script && GradleDependencyEdits.isBuildScript(script)) {
					return GradleDependencyEdits.edit(script, DependenciesToRetrykitStarter.this, usage, context);
				}
				return tree;
			}
		};
	}

	/** @return whether the artifact is an AOP starter that the library needed */
	static boolean isAopStarter(String groupId, String artifactId) {
		return "org.springframework.boot".equals(groupId) && AOP_STARTERS.contains(artifactId);
	}

	/** @return whether the artifact is retrykit's starter */
	static boolean isStarter(String groupId, String artifactId) {
		return STARTER_GROUP.equals(groupId) && STARTER_ARTIFACT.equals(artifactId);
	}

	/** @return the version of retrykit these recipes belong to, which the starter gets */
	static String retrykitVersion() {
		java.util.Properties properties = new java.util.Properties();
		try (InputStream in = DependenciesToRetrykitStarter.class.getResourceAsStream("version.properties")) {
			if (in == null) {
				throw new IllegalStateException("version.properties is missing from the retry-migrate jar");
			}
			properties.load(in);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return properties.getProperty("version");
	}

}
