package dev.retrykit.sample.chain;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Profile;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * One tier of the chain. {@code GET /chain/call} calls the next tier's {@code /chain/call} through a
 * {@link RestClient} or a {@link WebClient} from Boot's builder ({@code sample.chain.client}), which instance
 * {@code chain} retries ({@code http.hosts: [127.0.0.1]}), and answers 502 when the next tier answered an error,
 * 504 when it did not answer; the leaf (no {@code sample.chain.next}) answers its scripted status after its
 * scripted delay instead. Every tier passes on
 * the {@value ChainRecords#REQUEST_HEADER} header and records what it saw ({@code GET /chain/records}).
 */
@RestController
@RequestMapping("/chain")
@Profile("chain")
class ChainController {

	private final String tier;

	private final ChainRecords records;

	private final @Nullable NextTier next;

	private volatile int leafStatus;

	private volatile long leafDelayMillis;

	ChainController(ChainProperties properties, ChainRecords records, ObjectProvider<RestClient.Builder> restClients,
			ObjectProvider<WebClient.Builder> webClients) {
		this.tier = properties.tierName();
		this.records = records;
		URI next = properties.next();
		if (next == null) {
			this.next = null;
		}
		else {
			this.next = properties.webClient() ? NextTier.webClient(webClients.getObject(), next, records)
					: NextTier.restClient(restClients.getObject(), next, records);
		}
		this.leafStatus = (properties.leafStatus() != null) ? properties.leafStatus() : 503;
		this.leafDelayMillis = (properties.leafDelay() != null) ? properties.leafDelay().toMillis() : 0;
	}

	@GetMapping("/call")
	ResponseEntity<Map<String, Object>> call(
			@RequestHeader(name = ChainRecords.REQUEST_HEADER, required = false) @Nullable String request,
			@RequestHeader(name = ChainRecords.ATTEMPT_HEADER, required = false) @Nullable String attempt)
			throws InterruptedException {
		ChainRecords.Received arrival = this.records.arrived(request, ChainRecords.attemptNumber(attempt));
		try {
			NextTier next = this.next;
			if (next == null) {
				return leaf();
			}
			NextTier.Answer answer = next.call(request);
			String key = answer.status().isError() ? "error" : "next";
			return ResponseEntity.status(answer.status()).body(Map.of("tier", this.tier, key, answer.body()));
		}
		finally {
			this.records.answered(arrival);
		}
	}

	private ResponseEntity<Map<String, Object>> leaf() throws InterruptedException {
		long delay = this.leafDelayMillis;
		if (delay > 0) {
			// The leaf simulates a slow server: it really takes its time.
			TimeUnit.MILLISECONDS.sleep(delay);
		}
		int status = this.leafStatus;
		return ResponseEntity.status(status).body(Map.of("tier", this.tier, "status", status));
	}

	/**
	 * Scripts the leaf.
	 * @param status what it answers from now on
	 * @param delayMillis how long it takes before it answers, in milliseconds
	 */
	@PostMapping("/leaf")
	Map<String, Object> script(@RequestParam(defaultValue = "503") int status,
			@RequestParam(defaultValue = "0") long delayMillis) {
		if (status < 200 || status > 599) {
			throw new IllegalArgumentException("Invalid status (" + status + "): must be 200 to 599");
		}
		if (delayMillis < 0) {
			throw new IllegalArgumentException("Invalid delayMillis (" + delayMillis + "): must not be negative");
		}
		this.leafStatus = status;
		this.leafDelayMillis = delayMillis;
		return Map.of("tier", this.tier, "status", status, "delayMillis", delayMillis);
	}

	@GetMapping("/records")
	ChainRecords.Snapshot records() {
		return this.records.snapshot(this.tier);
	}

	@DeleteMapping("/records")
	ResponseEntity<Void> clear() {
		this.records.clear();
		return ResponseEntity.noContent().build();
	}

	@ExceptionHandler(IllegalArgumentException.class)
	ResponseEntity<Map<String, String>> badScript(IllegalArgumentException failure) {
		return ResponseEntity.badRequest().body(Map.of("error", String.valueOf(failure.getMessage())));
	}

}
