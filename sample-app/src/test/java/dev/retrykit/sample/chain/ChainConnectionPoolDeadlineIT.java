package dev.retrykit.sample.chain;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ChainDeadlineIT}'s requests on two tiers whose blocking client (Apache HttpClient 5, as Boot builds it)
 * keeps HttpClient's own pool of 5 connections to the next tier, while about 8 requests are in flight: an attempt
 * then waits for a pooled connection before it is sent. The deadline must bound that wait and the answer
 * together, and the time left sent along must be what is left when the request leaves. Runs after
 * {@code package} (Maven Failsafe); it starts and stops every process it runs.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChainConnectionPoolDeadlineIT {

	private Chain chain;

	@BeforeAll
	void startChain() throws Exception {
		this.chain = Chain.start("deadline-pool", 2, "--sample.chain.client=rest-client",
				"--sample.chain.max-connections-per-route=5");
		this.chain.awaitServing(Duration.ofSeconds(180));
		this.chain.scriptLeaf(503, ChainDeadlineIT.LEAF_DELAY_MILLIS);
	}

	@AfterAll
	void stopChain() {
		if (this.chain != null) {
			this.chain.close();
		}
	}

	@Test
	void aBlockingAttemptWaitingForAPooledConnectionKeepsTheDeadline() throws Exception {
		ChainDeadlineIT.assertDeadlineKept(this.chain, "RestClient, 5 pooled connections");
	}

}
