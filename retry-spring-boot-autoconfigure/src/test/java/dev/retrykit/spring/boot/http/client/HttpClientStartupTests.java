package dev.retrykit.spring.boot.http.client;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpClientAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad HTTP claims fail startup naming the property, the value and what is allowed. */
class HttpClientStartupTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new);

	private static ContextConsumer<AssertableApplicationContext> failsWith(String... parts) {
		return context -> {
			assertThat(context).hasFailed();
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
			for (String part : parts) {
				assertThat(cause).hasMessageContaining(part);
			}
		};
	}

	@Test
	void aHeaderNameThatIsNotAnHttpTokenShouldFailStartup() {
		for (String property : new String[] { "attempt-header", "exhausted-header", "deadline-header" }) {
			for (String name : new String[] { "X Retry", "X-Retry:", "", "X-Rétry" }) {
				this.runner.withPropertyValues("retry.http." + property + "=" + name)
					.run(failsWith("retry.http." + property, "HTTP token", "letters, digits or"));
			}
		}
	}

	@Test
	void twoHeadersWithOneNameShouldFailStartup() {
		this.runner.withPropertyValues("retry.http.deadline-header=x-retry-exhausted")
			.run(failsWith("retry.http.deadline-header", "'retry.http.exhausted-header' names the same header"));
	}

	@Test
	void validHeaderNamesShouldStart() {
		this.runner
			.withPropertyValues("retry.http.attempt-header=Attempt", "retry.http.exhausted-header=Retries-Spent",
					"retry.http.deadline-header=Request-Budget-Ms")
			.run(context -> assertThat(context).hasNotFailed());
	}

	@Test
	void twoInstancesClaimingOneHostShouldFailStartup() {
		this.runner
			.withPropertyValues("retry.instances.a.http.hosts=inventory.internal",
					"retry.instances.b.http.hosts=api.internal,INVENTORY.internal")
			.run(failsWith("retry.instances.b.http.hosts[1]", "already claimed by retry.instances.a.http.hosts[0]"));
	}

	@Test
	void twoInstancesClaimingOneServiceGroupShouldFailStartup() {
		this.runner
			.withPropertyValues("retry.instances.a.http.service-groups=inventory",
					"retry.instances.b.http.service-groups=inventory")
			.run(failsWith("retry.instances.b.http.service-groups[0]",
					"already claimed by retry.instances.a.http.service-groups[0]"));
	}

	@Test
	void aPatternThatIsNotAHostShouldFailStartup() {
		for (String pattern : new String[] { "http://x", "inventory internal", "*", "*.", "inventory.internal:8080",
				"inventory/api" }) {
			this.runner.withPropertyValues("retry.instances.a.http.hosts[0]=" + pattern)
				.run(failsWith("retry.instances.a.http.hosts[0]", "is not a host", "*.suffix"));
		}
		this.runner.withPropertyValues("retry.instances.a.http.hosts[0]=")
			.run(failsWith("retry.instances.a.http.hosts[0]", "is not a host"));
	}

	@Test
	void anUnknownMethodShouldFailStartup() {
		this.runner.withPropertyValues("retry.instances.a.http.hosts=x.internal", "retry.instances.a.http.methods=POST,FETCH")
			.run(failsWith("retry.instances.a.http.methods[1]", "'FETCH' is not an HTTP method",
					"GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE"));
	}

	@Test
	void hostsUnderASharedConfigShouldFailStartup() {
		this.runner.withPropertyValues("retry.configs.slow.http.hosts=x.internal")
			.run(failsWith("retry.configs.slow.http.hosts", "set under retry.instances only"));
	}

	@Test
	void methodsShouldBeInheritedFromABaseConfig() {
		this.runner
			.withPropertyValues("retry.configs.idempotent-posts.http.methods=post",
					"retry.instances.a.base-config=idempotent-posts", "retry.instances.a.http.hosts=x.internal")
			.run(context -> assertThat(context.getBean(HttpRetryRoutes.class).forHost("x.internal")
				.retries(org.springframework.http.HttpMethod.POST, new org.springframework.http.HttpHeaders())).isTrue());
	}

	@Test
	void aBlockingClientOfAnInstanceThatHedgesWithoutAnExecutorShouldFail() {
		this.runner
			.withPropertyValues("retry.instances.a.http.hosts=x.internal", "retry.instances.a.hedging.enabled=true")
			.run(context -> assertThatThrownBy(() -> context.getBean(RestClient.Builder.class))
				.rootCause()
				.hasMessageContaining("retry.instances.a.hedging.executor")
				.hasMessageContaining("need an executor"));
	}

	@Test
	void suffixPatternsShouldClaimTheirSubdomainsAndTheExactNameWins() {
		this.runner
			.withPropertyValues("retry.instances.a.http.hosts=*.inventory.svc", "retry.instances.b.http.hosts=eu.inventory.svc",
					"retry.instances.c.http.hosts=*.svc")
			.run(context -> {
				HttpRetryRoutes routes = context.getBean(HttpRetryRoutes.class);
				assertThat(routes.forHost("pod-1.inventory.svc").instance()).isEqualTo("a");
				assertThat(routes.forHost("Pod-1.Inventory.SVC").instance()).isEqualTo("a");
				assertThat(routes.forHost("eu.inventory.svc").instance()).isEqualTo("b");
				assertThat(routes.forHost("pricing.svc").instance()).isEqualTo("c");
				assertThat(routes.forHost("inventory.svc.example")).isNull();
				assertThat(routes.forHost("svc")).isNull();
				assertThat(routes.forHost(null)).isNull();
			});
	}

}
