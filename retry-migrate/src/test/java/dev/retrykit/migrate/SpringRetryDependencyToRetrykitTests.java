package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.maven.Assertions.pomXml;

/**
 * The Maven side of {@link SpringRetryDependencyToRetrykit}, on poms parsed and resolved by OpenRewrite's Maven parser
 * (Spring Boot's BOM imported, so most versions are managed; Spring Retry's version from a property).
 */
class SpringRetryDependencyToRetrykitTests implements RewriteTest {

	static final String VERSION = DependenciesToRetrykitStarter.retrykitVersion();

	static final String SPRING_RETRY = """
			    <dependency>
			      <groupId>org.springframework.retry</groupId>
			      <artifactId>spring-retry</artifactId>
			      <version>${spring-retry.version}</version>
			    </dependency>
			""";

	static final String ASPECTJ_STARTER = """
			    <dependency>
			      <groupId>org.springframework.boot</groupId>
			      <artifactId>spring-boot-starter-aspectj</artifactId>
			    </dependency>
			""";

	static final String STARTER = """
			    <dependency>
			      <groupId>dev.retrykit</groupId>
			      <artifactId>retry-spring-boot-starter</artifactId>
			      <version>%s</version>
			    </dependency>
			""".formatted(VERSION);

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new SpringRetryDependencyToRetrykit()).parser(RetrykitStubs.parser().classpath("spring-retry"))
			.executionContext(StarterRepository.context());
	}

	@Test
	void springRetryAndTheAopStarterItNeededBecomeTheStarter() {
		rewriteRun(java("""
				import org.springframework.retry.annotation.Retryable;

				class Inventory {
					@Retryable
					String stock() {
						return "";
					}
				}
				"""), pomXml(pom(SPRING_RETRY + ASPECTJ_STARTER + """
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-webmvc</artifactId>
				    </dependency>
				"""), pom(STARTER + """
				    <dependency>
				      <groupId>org.springframework.boot</groupId>
				      <artifactId>spring-boot-starter-webmvc</artifactId>
				    </dependency>
				""")));
	}

	@Test
	void theStarterGetsNoVersionWhereThePomManagesIt() {
		String managed = """
				      <dependency>
				        <groupId>dev.retrykit</groupId>
				        <artifactId>retry-spring-boot-starter</artifactId>
				        <version>${retrykit.version}</version>
				      </dependency>
				""";
		rewriteRun(java("""
				import org.springframework.retry.annotation.Retryable;

				class Inventory {
					@Retryable
					String stock() {
						return "";
					}
				}
				"""), pomXml(pom(SPRING_RETRY, managed), pom("""
				    <dependency>
				      <groupId>dev.retrykit</groupId>
				      <artifactId>retry-spring-boot-starter</artifactId>
				    </dependency>
				""", managed)));
	}

	@Test
	void theAopStarterStaysWhenTheProjectHasItsOwnAspects() {
		rewriteRun((spec) -> spec.parser(RetrykitStubs.parser().classpath("spring-retry", "aspectjweaver")), java("""
				import org.aspectj.lang.annotation.Aspect;

				@Aspect
				class Auditing {
				}
				"""), pomXml(pom(SPRING_RETRY + ASPECTJ_STARTER), pom(STARTER + ASPECTJ_STARTER)));
	}

	@Test
	void springRetryStaysBesideTheStarterWhileCodeStillUsesIt() {
		rewriteRun(java("""
				import org.springframework.retry.support.RetryTemplate;

				class Jobs {
					RetryTemplate template = new RetryTemplate();
				}
				"""), pomXml(pom(SPRING_RETRY), pom(STARTER + SPRING_RETRY)));
	}

	@Test
	void aPomWithoutSpringRetryIsLeftAlone() {
		rewriteRun(pomXml(pom(ASPECTJ_STARTER)));
	}

	/** @return a module's pom with these dependencies, Spring Boot's BOM imported and Spring Retry's version as a property */
	static String pom(String dependencies) {
		return pom(dependencies, "");
	}

	/** @return the same with more managed dependencies */
	static String pom(String dependencies, String managed) {
		return """
				<project>
				  <modelVersion>4.0.0</modelVersion>
				  <groupId>com.example</groupId>
				  <artifactId>shop</artifactId>
				  <version>1.0</version>
				  <properties>
				    <spring-retry.version>2.0.13</spring-retry.version>
				    <resilience4j.version>2.4.0</resilience4j.version>
				    <retrykit.version>%s</retrykit.version>
				  </properties>
				  <dependencyManagement>
				    <dependencies>
				      <dependency>
				        <groupId>org.springframework.boot</groupId>
				        <artifactId>spring-boot-dependencies</artifactId>
				        <version>4.1.1</version>
				        <type>pom</type>
				        <scope>import</scope>
				      </dependency>
				%s    </dependencies>
				  </dependencyManagement>
				  <dependencies>
				%s  </dependencies>
				</project>
				""".formatted(VERSION, managed, dependencies);
	}

}
