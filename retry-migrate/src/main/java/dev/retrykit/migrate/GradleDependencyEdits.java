package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.openrewrite.Cursor;
import org.openrewrite.ExecutionContext;
import org.openrewrite.SourceFile;
import org.openrewrite.Tree;
import org.openrewrite.gradle.AddDependencyVisitor;
import org.openrewrite.gradle.RemoveDependency;
import org.openrewrite.gradle.marker.GradleProject;
import org.openrewrite.gradle.trait.GradleDependency;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.maven.tree.GroupArtifact;

/**
 * The build edit of {@link DependenciesToRetrykitStarter} on a Gradle build script ({@code build.gradle} or
 * {@code build.gradle.kts}), through OpenRewrite's Gradle recipes: the dependencies the script declares are found with
 * OpenRewrite's {@link GradleDependency} trait, removed with {@link RemoveDependency}, and the starter added with
 * {@link AddDependencyVisitor} in the configuration the library was declared in ({@code implementation} as a rule).
 *
 * <p>Both need the {@link GradleProject} marker that the rewrite Gradle plugin attaches to a build script (its
 * configurations, read through Gradle's tooling API); a script parsed without it is left alone.
 */
final class GradleDependencyEdits {

	private GradleDependencyEdits() {
	}

	/** @return whether the source is a Gradle build script (not a settings script) */
	static boolean isBuildScript(SourceFile source) {
		String path = source.getSourcePath().toString().replace('\\', '/');
		return source instanceof JavaSourceFile && (path.endsWith("build.gradle") || path.endsWith("build.gradle.kts"));
	}

	/**
	 * @param script a build script
	 * @param recipe the library's recipe
	 * @param usage what the Java sources use
	 * @param context the run's context
	 * @return the script with the library's dependencies replaced, or as it was when it declares none
	 */
	static Tree edit(JavaSourceFile script, DependenciesToRetrykitStarter recipe, DependenciesToRetrykitStarter.Usage usage,
			ExecutionContext context) {
		if (script.getMarkers().findFirst(GradleProject.class).isEmpty()) {
			return script;
		}
		Map<GroupArtifact, String> library = new LinkedHashMap<>();
		List<GroupArtifact> aop = new ArrayList<>();
		boolean[] hasStarter = { false };
		new JavaIsoVisitor<Integer>() {
			@Override
			public J.MethodInvocation visitMethodInvocation(J.MethodInvocation method, Integer p) {
				new GradleDependency.Matcher().get(getCursor()).ifPresent((dependency) -> {
					String group = dependency.getGroupId();
					String artifact = dependency.getArtifactId();
					if (recipe.isLibrary(group, artifact)) {
						library.putIfAbsent(new GroupArtifact(group, artifact), dependency.getConfigurationName());
					}
					else if (DependenciesToRetrykitStarter.isAopStarter(group, artifact)) {
						aop.add(new GroupArtifact(group, artifact));
					}
					hasStarter[0] |= DependenciesToRetrykitStarter.isStarter(group, artifact);
				});
				return super.visitMethodInvocation(method, p);
			}
		}.visit(script, 0);
		if (library.isEmpty()) {
			return script;
		}
		Tree edited = script;
		if (!usage.libraryStays) {
			List<GroupArtifact> removed = new ArrayList<>(library.keySet());
			if (!usage.aspectJUsed) {
				removed.addAll(aop);
			}
			for (GroupArtifact dependency : removed) {
				edited = new RemoveDependency(dependency.getGroupId(), dependency.getArtifactId(), null).getVisitor()
					.visitNonNull(edited, context);
			}
		}
		if (!hasStarter[0]) {
			String configuration = library.values().iterator().next();
			edited = new AddDependencyVisitor(DependenciesToRetrykitStarter.STARTER_GROUP,
					DependenciesToRetrykitStarter.STARTER_ARTIFACT, DependenciesToRetrykitStarter.retrykitVersion(), null,
					configuration, null, null, null, GradleDependencyEdits::isTopLevel, null).visitNonNull(edited, context);
		}
		return edited;
	}

	/** Where a new {@code dependencies} block may go: the script's top level (as OpenRewrite's AddDependency). */
	private static boolean isTopLevel(Cursor cursor) {
		if (cursor.getValue() instanceof J.Block) {
			return cursor.getParentOrThrow().getValue() instanceof JavaSourceFile;
		}
		return cursor.getParentOrThrow().firstEnclosing(J.MethodInvocation.class) == null;
	}

}
