package dev.retrykit.spring.boot.actuate.endpoint;

import java.security.Principal;
import java.util.Set;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

class RetriesEndpointWebExtensionTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = TestRetryRegistries.create(this.time);

	private final RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.NEVER, this.time);

	RetriesEndpointWebExtensionTests() {
		TestRetryRegistries.failStatefully(this.registry, SECRET);
	}

	@Test
	void masksValuesForEveryoneByDefault() {
		RetriesEndpointWebExtension extension = extension(Show.NEVER, Set.of());

		assertThat(shownKey(extension, user("admin", "ACTUATOR"))).isEqualTo("******");
	}

	@Test
	void showsValuesToEveryoneWhenAlwaysShown() {
		assertThat(shownKey(extension(Show.ALWAYS, Set.of()), SecurityContext.NONE)).isEqualTo(SECRET);
	}

	@Test
	void whenAuthorizedShowsValuesOnlyToAnAuthenticatedUser() {
		RetriesEndpointWebExtension extension = extension(Show.WHEN_AUTHORIZED, Set.of());

		assertThat(shownKey(extension, SecurityContext.NONE)).isEqualTo("******");
		assertThat(shownKey(extension, user("alice"))).isEqualTo(SECRET);
	}

	@Test
	void whenAuthorizedWithRolesShowsValuesOnlyToAUserInARole() {
		RetriesEndpointWebExtension extension = extension(Show.WHEN_AUTHORIZED, Set.of("ACTUATOR"));

		assertThat(shownKey(extension, user("alice"))).isEqualTo("******");
		assertThat(shownKey(extension, user("bob", "ACTUATOR"))).isEqualTo(SECRET);
		assertThat(extension.retries(user("bob", "ACTUATOR")).instances()).containsKey("inventory");
	}

	@Test
	void answers404WithAMessageForAnUnknownInstance() {
		WebEndpointResponse<Object> response = extension(Show.NEVER, Set.of()).retry(SecurityContext.NONE, "nope");

		assertThat(response.getStatus()).isEqualTo(404);
		assertThat(response.getBody()).isEqualTo(new RetriesEndpointWebExtension.ErrorDescriptor(
				"No retry instance named 'nope'; known instances: [inventory, payments, search]"));
	}

	@Test
	void performsAnActionAndAnswersWithTheInstance() {
		WebEndpointResponse<Object> response = extension(Show.NEVER, Set.of()).perform("payments", "open-circuit");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getBody()).isInstanceOfSatisfying(RetryInstanceDescriptor.class,
				(instance) -> assertThat(instance.circuit().state()).isEqualTo("OPEN"));
	}

	@Test
	void answers400ForAnActionThatDoesNotApply() {
		RetriesEndpointWebExtension extension = extension(Show.NEVER, Set.of());

		assertThat(extension.perform("payments", "explode").getStatus()).isEqualTo(400);
		WebEndpointResponse<Object> noCircuit = extension.perform("inventory", "close-circuit");
		assertThat(noCircuit.getStatus()).isEqualTo(400);
		assertThat(noCircuit.getBody()).isInstanceOfSatisfying(RetriesEndpointWebExtension.ErrorDescriptor.class,
				(error) -> assertThat(error.message()).startsWith("Retry instance 'inventory' has no circuit breaker"));
	}

	@Test
	void answers404ForAnActionOnAnUnknownInstance() {
		assertThat(extension(Show.NEVER, Set.of()).perform("nope", "clear-cache").getStatus()).isEqualTo(404);
		assertThat(this.registry.names()).doesNotContain("nope");
	}

	private RetriesEndpointWebExtension extension(Show show, Set<String> roles) {
		return new RetriesEndpointWebExtension(this.endpoint, show, roles);
	}

	private static String shownKey(RetriesEndpointWebExtension extension, SecurityContext securityContext) {
		Object body = extension.retry(securityContext, "inventory").getBody();
		return ((RetryInstanceDescriptor) body).contextCache().entries().get(0).key();
	}

	private static SecurityContext user(String name, String... roles) {
		Principal principal = () -> name;
		return new SecurityContext() {

			@Override
			public @Nullable Principal getPrincipal() {
				return principal;
			}

			@Override
			public boolean isUserInRole(String role) {
				return Set.of(roles).contains(role);
			}

		};
	}

}
