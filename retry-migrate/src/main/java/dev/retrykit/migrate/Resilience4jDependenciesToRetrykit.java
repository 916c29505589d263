package dev.retrykit.migrate;

import java.util.Set;

import org.openrewrite.java.tree.JavaSourceFile;

/**
 * Replaces Resilience4j's Spring and retry / circuit breaker artifacts with retrykit's starter, and drops the AOP
 * starter when nothing else needs it; keeps them (and adds the starter) when code still uses Resilience4j after the
 * migration (a rate limiter, a bulkhead, its programmatic API, a class left with a note).
 */
public final class Resilience4jDependenciesToRetrykit extends DependenciesToRetrykitStarter {

	/** Makes the recipe; OpenRewrite creates it by its name. */
	public Resilience4jDependenciesToRetrykit() {
	}

	private static final Set<String> ARTIFACTS = Set.of("resilience4j-spring-boot2", "resilience4j-spring-boot3",
			"resilience4j-spring-boot4", "resilience4j-spring6", "resilience4j-spring", "resilience4j-retry",
			"resilience4j-circuitbreaker", "resilience4j-annotations");

	@Override
	public String getDisplayName() {
		return "Resilience4j dependencies to retrykit's starter";
	}

	@Override
	public String getDescription() {
		return "Replaces Resilience4j's Spring Boot, retry, circuit breaker and annotation artifacts with "
				+ "`dev.retrykit:retry-spring-boot-starter` in Maven poms and Gradle build scripts; keeps them while code "
				+ "still uses Resilience4j.";
	}

	@Override
	boolean isLibrary(String groupId, String artifactId) {
		return "io.github.resilience4j".equals(groupId) && ARTIFACTS.contains(artifactId);
	}

	@Override
	boolean staysAfterMigration(JavaSourceFile java) {
		return Resilience4jAnnotationsToRetrykit.staysAfterMigration(java);
	}

}
