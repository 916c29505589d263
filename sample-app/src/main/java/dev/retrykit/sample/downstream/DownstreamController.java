package dev.retrykit.sample.downstream;

import java.util.Map;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A scripted flaky downstream, served by the sample itself under {@code /downstream} so that the
 * clients call it over real HTTP without any other process. {@code /downstream/script/...} scripts its
 * failures, slow answers and stragglers.
 */
@RestController
@RequestMapping("/downstream")
class DownstreamController {

	private final FlakyDownstream downstream;

	DownstreamController(FlakyDownstream downstream) {
		this.downstream = downstream;
	}

	@GetMapping("/inventory/{sku}")
	ResponseEntity<Map<String, Object>> inventory(@PathVariable String sku) throws InterruptedException {
		return answer("inventory", Map.of("sku", sku, "quantity", 42));
	}

	@GetMapping("/pricing/{sku}")
	ResponseEntity<Map<String, Object>> price(@PathVariable String sku) throws InterruptedException {
		return answer("pricing", Map.of("sku", sku, "price", "19.99", "cached", false));
	}

	@GetMapping("/shipping/{orderId}")
	ResponseEntity<Map<String, Object>> shipping(@PathVariable String orderId) throws InterruptedException {
		return answer("shipping", Map.of("orderId", orderId, "days", 2));
	}

	@GetMapping("/recommendations/{sku}")
	ResponseEntity<Map<String, Object>> recommendations(@PathVariable String sku) throws InterruptedException {
		return answer("recommendations", Map.of("sku", sku, "alsoBought", java.util.List.of("SKU-2", "SKU-3")));
	}

	@GetMapping("/search/{query}")
	ResponseEntity<Map<String, Object>> search(@PathVariable String query) throws InterruptedException {
		return answer(FlakyDownstream.SEARCH, Map.of("query", query, "skus", java.util.List.of("SKU-1", "SKU-4")));
	}

	@PostMapping("/payments/{orderId}")
	ResponseEntity<Map<String, Object>> pay(@PathVariable String orderId) throws InterruptedException {
		return answer("payments", Map.of("orderId", orderId, "paid", true));
	}

	@PostMapping("/audit")
	ResponseEntity<Map<String, Object>> audit(@RequestBody Map<String, Object> event) throws InterruptedException {
		return answer("audit", Map.of("received", event.get("id")));
	}

	@PostMapping("/script/{service}/fail")
	Map<String, String> fail(@PathVariable String service, @RequestParam(defaultValue = "2") int count,
			@RequestParam(defaultValue = "503") int status, @RequestParam(defaultValue = "0") int retryAfter) {
		this.downstream.failNext(service, count, status, retryAfter);
		return this.downstream.describe();
	}

	@PostMapping("/script/{service}/down")
	Map<String, String> down(@PathVariable String service) {
		this.downstream.down(service);
		return this.downstream.describe();
	}

	@PostMapping("/script/{service}/slow")
	Map<String, String> slow(@PathVariable String service, @RequestParam(defaultValue = "3000") long millis,
			@RequestParam(defaultValue = "-1") int count) {
		this.downstream.slow(service, millis, count);
		return this.downstream.describe();
	}

	@PostMapping("/script/{service}/stragglers")
	Map<String, String> stragglers(@PathVariable String service, @RequestParam(defaultValue = "50") int every,
			@RequestParam(defaultValue = "200") long millis) {
		this.downstream.stragglers(service, every, millis);
		return this.downstream.describeStragglers();
	}

	@PostMapping("/script/{service}/up")
	Map<String, String> up(@PathVariable String service) {
		this.downstream.up(service);
		return this.downstream.describe();
	}

	@GetMapping("/script")
	Map<String, String> script() {
		return this.downstream.describe();
	}

	@ExceptionHandler(IllegalArgumentException.class)
	ResponseEntity<Map<String, String>> badScript(IllegalArgumentException failure) {
		return ResponseEntity.badRequest().body(Map.of("error", String.valueOf(failure.getMessage())));
	}

	private ResponseEntity<Map<String, Object>> answer(String service, Map<String, Object> body)
			throws InterruptedException {
		FlakyDownstream.Outcome outcome = this.downstream.next(service);
		if (outcome.failed()) {
			ResponseEntity.BodyBuilder failure = ResponseEntity.status(outcome.status());
			if (outcome.retryAfterSeconds() > 0) {
				failure.header("Retry-After", Integer.toString(outcome.retryAfterSeconds()));
			}
			return failure.body(Map.of("error", service + " is failing (scripted)"));
		}
		if (outcome.delayMillis() > 0) {
			// The downstream is a simulation of a slow server: it really takes its time.
			Thread.sleep(outcome.delayMillis());
		}
		return ResponseEntity.ok(body);
	}

}
