package dev.retrykit.sample.chain;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpStatus;
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
import org.springframework.web.client.RestClientResponseException;

/**
 * One tier of the chain. {@code GET /chain/call} calls the next tier's {@code /chain/call} through a
 * {@link RestClient} from Boot's builder, which instance {@code chain} retries ({@code http.hosts: [127.0.0.1]}),
 * and answers 502 when the next tier answered an error, 504 when it did not answer; the leaf (no
 * {@code sample.chain.next}) answers its scripted status after its scripted delay instead. Every tier passes on
 * the {@value ChainRecords#REQUEST_HEADER} header and records what it saw ({@code GET /chain/records}).
 */
@RestController
@RequestMapping("/chain")
@Profile("chain")
class ChainController {

	private final String tier;

	private final ChainRecords records;

	private final @Nullable RestClient next;

	private volatile int leafStatus;

	private volatile long leafDelayMillis;

	ChainController(ChainProperties properties, ChainRecords records, RestClient.Builder builder) {
		this.tier = properties.tierName();
		this.records = records;
		// Added after retrykit's interceptor (which Boot's customizer put first), so it runs once per attempt.
		this.next = (properties.next() != null)
				? builder.clone().baseUrl(properties.next().toString()).requestInterceptor(records).build() : null;
		this.leafStatus = (properties.leafStatus() != null) ? properties.leafStatus() : 503;
		this.leafDelayMillis = (properties.leafDelay() != null) ? properties.leafDelay().toMillis() : 0;
	}

	@GetMapping("/call")
	ResponseEntity<Map<String, Object>> call(@RequestHeader(name = ChainRecords.REQUEST_HEADER, required = false) @Nullable String request,
			@RequestHeader(name = ChainRecords.ATTEMPT_HEADER, required = false) @Nullable String attempt)
			throws InterruptedException {
		this.records.received(request, ChainRecords.attemptNumber(attempt));
		RestClient client = this.next;
		if (client == null) {
			return leaf();
		}
		try {
			String body = client.get().uri("/chain/call")
				.headers(headers -> {
					if (request != null) {
						headers.set(ChainRecords.REQUEST_HEADER, request);
					}
				})
				.retrieve().body(String.class);
			return ResponseEntity.ok(Map.of("tier", this.tier, "next", String.valueOf(body)));
		}
		catch (RestClientResponseException ex) {
			return ResponseEntity.status(HttpStatus.BAD_GATEWAY)
				.body(Map.of("tier", this.tier, "error", "the next tier answered " + ex.getStatusCode().value()));
		}
		catch (RuntimeException ex) {
			return ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT)
				.body(Map.of("tier", this.tier, "error", "the next tier did not answer: " + ex));
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
