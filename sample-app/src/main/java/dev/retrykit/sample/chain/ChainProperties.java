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
 */
@ConfigurationProperties("sample.chain")
public record ChainProperties(@Nullable String tier, @Nullable URI next, @Nullable Integer leafStatus,
		@Nullable Duration leafDelay) {

	/** {@return the tier's name, {@code leaf} or {@code tier} when unset} */
	String tierName() {
		return (this.tier != null && !this.tier.isBlank()) ? this.tier : ((this.next == null) ? "leaf" : "tier");
	}

}
