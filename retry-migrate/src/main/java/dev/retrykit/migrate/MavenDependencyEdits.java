package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.List;

import org.openrewrite.ExecutionContext;
import org.openrewrite.Tree;
import org.openrewrite.maven.AddDependencyVisitor;
import org.openrewrite.maven.RemoveDependency;
import org.openrewrite.maven.tree.GroupArtifact;
import org.openrewrite.maven.tree.MavenResolutionResult;
import org.openrewrite.maven.tree.ResolvedPom;
import org.openrewrite.xml.tree.Xml;

/**
 * The build edit of {@link DependenciesToRetrykitStarter} on a {@code pom.xml}, through OpenRewrite's Maven recipes:
 * the pom's own dependencies are read from its resolved model (a {@code ${property}} in a coordinate is understood),
 * removed with {@link RemoveDependency}, and the starter added with {@link AddDependencyVisitor}, which leaves out the
 * version where the pom (its parent, an imported BOM) manages it.
 */
final class MavenDependencyEdits {

	private MavenDependencyEdits() {
	}

	/**
	 * @param pom a pom parsed by OpenRewrite's Maven parser
	 * @param recipe the library's recipe
	 * @param usage what the Java sources use
	 * @param context the run's context
	 * @return the pom with the library's dependencies replaced, or as it was when it has none
	 */
	static Tree edit(Xml.Document pom, DependenciesToRetrykitStarter recipe, DependenciesToRetrykitStarter.Usage usage,
			ExecutionContext context) {
		MavenResolutionResult model = pom.getMarkers().findFirst(MavenResolutionResult.class).orElse(null);
		if (model == null) {
			return pom;
		}
		ResolvedPom resolved = model.getPom();
		List<GroupArtifact> library = new ArrayList<>();
		List<GroupArtifact> aop = new ArrayList<>();
		boolean hasStarter = false;
		// This pom's own <dependencies>, not those it inherits from its parent (which the parent's run edits).
		for (Xml.Tag dependency : ownDependencies(pom)) {
			String group = resolved.getValue(dependency.getChildValue("groupId").orElse(""));
			String artifact = resolved.getValue(dependency.getChildValue("artifactId").orElse(""));
			if (group == null || artifact == null) {
				continue;
			}
			if (recipe.isLibrary(group, artifact)) {
				library.add(new GroupArtifact(group, artifact));
			}
			else if (DependenciesToRetrykitStarter.isAopStarter(group, artifact)) {
				aop.add(new GroupArtifact(group, artifact));
			}
			hasStarter |= DependenciesToRetrykitStarter.isStarter(group, artifact);
		}
		if (library.isEmpty()) {
			return pom;
		}
		Tree edited = pom;
		if (!usage.libraryStays) {
			List<GroupArtifact> removed = new ArrayList<>(library);
			if (!usage.aspectJUsed) {
				removed.addAll(aop);
			}
			for (GroupArtifact dependency : removed) {
				edited = new RemoveDependency(dependency.getGroupId(), dependency.getArtifactId(), null).getVisitor()
					.visitNonNull(edited, context);
			}
		}
		if (!hasStarter) {
			edited = new AddDependencyVisitor(DependenciesToRetrykitStarter.STARTER_GROUP,
					DependenciesToRetrykitStarter.STARTER_ARTIFACT, DependenciesToRetrykitStarter.retrykitVersion(), null,
					null, null, null, null, null, null).visitNonNull(edited, context);
		}
		return edited;
	}

	private static List<Xml.Tag> ownDependencies(Xml.Document pom) {
		return pom.getRoot().getChild("dependencies").map((dependencies) -> dependencies.getChildren("dependency"))
			.orElse(List.of());
	}

}
