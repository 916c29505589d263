package dev.retrykit.sample.chain;

import java.net.URI;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * One tier of the chain ({@code sample.chain}).
 *
 * @param tier the tier's name, in what it answers and records
 * @param next the base URL of the next tier ({@code http://127.0.0.1:8081}); none makes this tier the leaf
 * @param leafStatus what the leaf answers (default 503), until {@code POST /chain/leaf} changes it
 * @param leafDelay how long the leaf takes before it answers (default none)
 * @param client how the tier calls the next one: {@code rest-client} (default, blocking) or {@code web-client}
 * @param maxConnectionsPerRoute the pooled connections of the blocking client (Apache HttpClient 5) to the next
 * tier; unset, HttpClient's own default (5)
 */
@ConfigurationProperties("sample.chain")
public record ChainProperties(@Nullable String tier, @Nullable URI next, @Nullable Integer leafStatus,
		@Nullable Duration leafDelay, @Nullable String client, @Nullable Integer maxConnectionsPerRoute) {

	/** {@return whether the tier calls the next one with WebClient}
	 * @throws IllegalArgumentException if {@code sample.chain.client} is neither {@code rest-client} nor
	 * {@code web-client}
	 */
	boolean webClient() {
		if (this.client == null || this.client.isBlank() || this.client.equals("rest-client")) {
			return false;
		}
		if (this.client.equals("web-client")) {
			return true;
		}
		throw new IllegalArgumentException(
				"Invalid sample.chain.client (" + this.client + "): must be rest-client or web-client");
	}

	/** {@return the tier's name, {@code leaf} or {@code tier} when unset} */
	String tierName() {
		return (this.tier != null && !this.tier.isBlank()) ? this.tier : ((this.next == null) ? "leaf" : "tier");
	}

}
