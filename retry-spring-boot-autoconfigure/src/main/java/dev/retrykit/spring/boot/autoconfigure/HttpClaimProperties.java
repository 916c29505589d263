package dev.retrykit.spring.boot.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The HTTP calls an instance claims ({@code retry.instances.<name>.http}); hosts and service groups are set on
 * instances only, methods anywhere (inherited through {@code base-config}). Every field is {@code null} until set.
 * Not thread-safe; read once at startup.
 */
public class HttpClaimProperties {

	/**
	 * Hosts whose calls this instance retries: exact names (inventory.internal) or *.suffix (*.inventory.svc, any
	 * name ending in .inventory.svc). A host is claimed by one instance at most. Only under retry.instances.
	 */
	private @Nullable List<String> hosts;

	/** HTTP service groups (@ImportHttpServices group names) every call of which this instance retries. Only under retry.instances. */
	private @Nullable List<String> serviceGroups;

	/**
	 * Methods retried besides the idempotent ones (GET, HEAD, OPTIONS, TRACE, PUT, DELETE), e.g. POST or PATCH
	 * for a downstream known to be idempotent; a request with an Idempotency-Key header is retried whatever
	 * its method. Default none.
	 */
	private @Nullable List<String> methods;

	public @Nullable List<String> getHosts() {
		return this.hosts;
	}

	public void setHosts(@Nullable List<String> hosts) {
		this.hosts = hosts;
	}

	public @Nullable List<String> getServiceGroups() {
		return this.serviceGroups;
	}

	public void setServiceGroups(@Nullable List<String> serviceGroups) {
		this.serviceGroups = serviceGroups;
	}

	public @Nullable List<String> getMethods() {
		return this.methods;
	}

	public void setMethods(@Nullable List<String> methods) {
		this.methods = methods;
	}

}
