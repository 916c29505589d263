package dev.retrykit.migrate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.ScanningRecipe;
import org.openrewrite.SourceFile;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.xml.AddToTagVisitor;
import org.openrewrite.xml.RemoveContentVisitor;
import org.openrewrite.xml.XPathMatcher;
import org.openrewrite.xml.XmlIsoVisitor;
import org.openrewrite.xml.tree.Xml;

/**
 * Replaces a library's Maven dependencies with retrykit's Spring Boot starter, and drops the AOP starter the library
 * needed when no code of the project uses AspectJ itself.
 *
 * <p>When Java code still uses the library after the migration (an annotation left with a note, an API the recipes
 * do not move), its dependencies stay and the starter is added beside them. Only {@code pom.xml} files' own
 * {@code <dependencies>} are changed; managed versions and plugins are left alone.
 */
abstract class DependenciesToRetrykitStarter extends ScanningRecipe<DependenciesToRetrykitStarter.Usage> {

	static final String STARTER_GROUP = "dev.retrykit";

	static final String STARTER_ARTIFACT = "retry-spring-boot-starter";

	private static final Set<String> AOP_STARTERS = Set.of("spring-boot-starter-aop", "spring-boot-starter-aspectj");

	private static final XPathMatcher DEPENDENCIES = new XPathMatcher("/project/dependencies");

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
				if (tree instanceof JavaSourceFile java) {
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
				if (tree instanceof Xml.Document pom && ((SourceFile) tree).getSourcePath().toString().endsWith("pom.xml")) {
					return new PomVisitor(usage).visit(pom, context);
				}
				return tree;
			}
		};
	}

	private final class PomVisitor extends XmlIsoVisitor<ExecutionContext> {

		private final Usage usage;

		PomVisitor(Usage usage) {
			this.usage = usage;
		}

		@Override
		public Xml.Tag visitTag(Xml.Tag tag, ExecutionContext context) {
			Xml.Tag visited = super.visitTag(tag, context);
			if (!DEPENDENCIES.matches(getCursor())) {
				return visited;
			}
			List<Xml.Tag> library = new ArrayList<>();
			List<Xml.Tag> aop = new ArrayList<>();
			boolean hasStarter = false;
			for (Xml.Tag dependency : visited.getChildren("dependency")) {
				String group = dependency.getChildValue("groupId").orElse("");
				String artifact = dependency.getChildValue("artifactId").orElse("");
				if (isLibrary(group, artifact)) {
					library.add(dependency);
				}
				else if ("org.springframework.boot".equals(group) && AOP_STARTERS.contains(artifact)) {
					aop.add(dependency);
				}
				hasStarter |= STARTER_GROUP.equals(group) && STARTER_ARTIFACT.equals(artifact);
			}
			if (library.isEmpty()) {
				return visited;
			}
			if (!hasStarter) {
				Xml.Tag starter = Xml.Tag.build("<dependency>\n<groupId>" + STARTER_GROUP + "</groupId>\n<artifactId>"
						+ STARTER_ARTIFACT + "</artifactId>\n<version>" + retrykitVersion() + "</version>\n</dependency>");
				doAfterVisit(new AddToTagVisitor<>(visited, starter));
			}
			if (!this.usage.libraryStays) {
				List<Xml.Tag> removed = new ArrayList<>(library);
				if (!this.usage.aspectJUsed) {
					removed.addAll(aop);
				}
				for (Xml.Tag dependency : removed) {
					doAfterVisit(new RemoveContentVisitor<>(dependency, false, true));
				}
			}
			return visited;
		}

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
