package dev.retrykit.migrate;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.openrewrite.gradle.marker.GradleDependencyConfiguration;
import org.openrewrite.gradle.marker.GradleProject;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.openrewrite.gradle.Assertions.buildGradle;
import static org.openrewrite.gradle.Assertions.buildGradleKts;
import static org.openrewrite.java.Assertions.java;

/**
 * The Gradle side of the dependency recipes, on build scripts parsed by OpenRewrite's Gradle parser (Groovy and Kotlin
 * DSL; the Gradle API's types come with rewrite-gradle, so no Gradle distribution is needed to parse).
 *
 * <p>What these tests cannot reach: the rewrite Gradle plugin attaches to each build script a {@link GradleProject}
 * marker that it reads from Gradle itself through the tooling API (its configurations and their resolved
 * dependencies), and OpenRewrite's Gradle recipes only edit a script that has one. No Gradle distribution can be
 * downloaded on the machines these tests run on, so each script here gets a marker made by hand with the configurations
 * of the {@code java} plugin and no resolved dependencies; a run in a real Gradle build has the real one.
 */
class GradleBuildMigrationTests implements RewriteTest {

	private static final String VERSION = DependenciesToRetrykitStarter.retrykitVersion();

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new SpringRetryDependencyToRetrykit()).parser(RetrykitStubs.parser().classpath("spring-retry"))
			.executionContext(StarterRepository.context());
	}

	@Test
	void springRetryAndTheAopStarterBecomeTheStarterInAGroovyBuildScript() {
		rewriteRun(java("""
				import org.springframework.retry.annotation.Retryable;

				class Inventory {
					@Retryable
					String stock() {
						return "";
					}
				}
				"""), buildGradle("""
				plugins {
				    id 'java'
				}

				dependencies {
				    implementation 'org.springframework.boot:spring-boot-starter-web:3.5.0'
				    implementation 'org.springframework.retry:spring-retry:2.0.13'
				    implementation 'org.springframework.boot:spring-boot-starter-aop:3.5.0'
				}
				""", """
				plugins {
				    id 'java'
				}

				dependencies {
				    implementation "dev.retrykit:retry-spring-boot-starter:%s"
				    implementation 'org.springframework.boot:spring-boot-starter-web:3.5.0'
				}
				""".formatted(VERSION), (spec) -> spec.markers(javaProject())));
	}

	@Test
	void springRetryStaysBesideTheStarterWhileCodeStillUsesIt() {
		rewriteRun(java("""
				import org.springframework.retry.support.RetryTemplate;

				class Jobs {
					RetryTemplate template = new RetryTemplate();
				}
				"""), buildGradle("""
				plugins {
				    id 'java'
				}

				dependencies {
				    implementation 'org.springframework.retry:spring-retry:2.0.13'
				}
				""", """
				plugins {
				    id 'java'
				}

				dependencies {
				    implementation "dev.retrykit:retry-spring-boot-starter:%s"
				    implementation 'org.springframework.retry:spring-retry:2.0.13'
				}
				""".formatted(VERSION), (spec) -> spec.markers(javaProject())));
	}

	@Test
	void resilience4jBecomesTheStarterInAKotlinBuildScript() {
		rewriteRun((spec) -> spec.recipe(new Resilience4jDependenciesToRetrykit()), buildGradleKts("""
				plugins {
				    java
				}

				dependencies {
				    implementation("io.github.resilience4j:resilience4j-spring-boot3:2.4.0")
				    implementation("io.github.resilience4j:resilience4j-circuitbreaker:2.4.0")
				    implementation("org.springframework.boot:spring-boot-starter-aop:3.5.0")
				}
				""", """
				plugins {
				    java
				}

				dependencies {
				    implementation("dev.retrykit:retry-spring-boot-starter:%s")
				}
				""".formatted(VERSION), (spec) -> spec.markers(javaProject())));
	}

	@Test
	void aBuildScriptWithoutTheLibraryIsLeftAlone() {
		rewriteRun(buildGradle("""
				plugins {
				    id 'java'
				}

				dependencies {
				    implementation 'org.springframework.boot:spring-boot-starter-aop:3.5.0'
				}
				""", (spec) -> spec.markers(javaProject())));
	}

	/** @return the marker the rewrite Gradle plugin would attach to the script of a project with the java plugin */
	static GradleProject javaProject() {
		GradleDependencyConfiguration implementation = configuration("implementation", false, List.of());
		GradleDependencyConfiguration testImplementation = configuration("testImplementation", false, List.of(implementation));
		Map<String, GradleDependencyConfiguration> configurations = Map.of("implementation", implementation,
				"compileClasspath", configuration("compileClasspath", true, List.of(implementation)),
				"runtimeClasspath", configuration("runtimeClasspath", true, List.of(implementation)),
				"testImplementation", testImplementation,
				"testCompileClasspath", configuration("testCompileClasspath", true, List.of(testImplementation)),
				"testRuntimeClasspath", configuration("testRuntimeClasspath", true, List.of(testImplementation)));
		return GradleProject.builder().group("com.example").name("shop").version("1.0").path(":")
			.mavenRepositories(List.of(StarterRepository.repository())).nameToConfiguration(configurations).build();
	}

	private static GradleDependencyConfiguration configuration(String name, boolean resolvable,
			List<GradleDependencyConfiguration> extendsFrom) {
		return GradleDependencyConfiguration.builder().name(name).isTransitive(true).isCanBeResolved(resolvable)
			.isCanBeConsumed(false).isCanBeDeclared(!resolvable).extendsFrom(extendsFrom).requested(List.of())
			.directResolved(List.of()).constraints(List.of()).attributes(Map.of()).build();
	}

}
