package dev.retrykit.sample.shop;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import dev.retrykit.sample.client.AuditPublisher;
import dev.retrykit.sample.client.InventoryClient;
import dev.retrykit.sample.client.Model.AuditEvent;
import dev.retrykit.sample.client.Model.PaymentReceipt;
import dev.retrykit.sample.client.Model.Price;
import dev.retrykit.sample.client.Model.Recommendations;
import dev.retrykit.sample.client.Model.SearchResults;
import dev.retrykit.sample.client.Model.ShippingQuote;
import dev.retrykit.sample.client.Model.Stock;
import dev.retrykit.sample.client.PaymentClient;
import dev.retrykit.sample.client.PricingClient;
import dev.retrykit.sample.client.RecommendationsApi;
import dev.retrykit.sample.client.SearchClient;
import dev.retrykit.sample.client.ShippingClient;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClientException;

/**
 * The sample's own API: each endpoint goes through one client, so a curl shows one retry feature.
 */
@RestController
@RequestMapping("/shop")
class ShopController {

	private final InventoryClient inventory;

	private final PricingClient pricing;

	private final ShippingClient shipping;

	private final AuditPublisher audit;

	private final PaymentClient payments;

	private final RecommendationsApi recommendations;

	private final SearchClient search;

	ShopController(InventoryClient inventory, PricingClient pricing, ShippingClient shipping, AuditPublisher audit,
			PaymentClient payments, RecommendationsApi recommendations, SearchClient search) {
		this.inventory = inventory;
		this.pricing = pricing;
		this.shipping = shipping;
		this.audit = audit;
		this.payments = payments;
		this.recommendations = recommendations;
		this.search = search;
	}

	@GetMapping("/stock/{sku}")
	Stock stock(@PathVariable String sku) {
		return this.inventory.stock(sku);
	}

	@GetMapping("/price/{sku}")
	Price price(@PathVariable String sku) {
		return this.pricing.price(sku);
	}

	@GetMapping("/shipping/{orderId}")
	CompletableFuture<ShippingQuote> shipping(@PathVariable String orderId) {
		return this.shipping.quote(orderId);
	}

	@GetMapping("/recommendations/{sku}")
	Recommendations recommendations(@PathVariable String sku) {
		return this.recommendations.forSku(sku);
	}

	@GetMapping("/search/{query}")
	CompletableFuture<SearchResults> search(@PathVariable String query) {
		return this.search.search(query);
	}

	@GetMapping("/search-unhedged/{query}")
	CompletableFuture<SearchResults> searchUnhedged(@PathVariable String query) {
		return this.search.searchUnhedged(query);
	}

	@PostMapping("/orders/{orderId}/pay")
	PaymentReceipt pay(@PathVariable String orderId) {
		return this.payments.pay(orderId);
	}

	@PostMapping("/orders/{orderId}/audit")
	ResponseEntity<Map<String, String>> audit(@PathVariable String orderId) {
		this.audit.publish(new AuditEvent(orderId, "order-viewed"));
		return ResponseEntity.accepted().body(body("event", orderId, "status", "accepted"));
	}

	@ExceptionHandler(RestClientException.class)
	ResponseEntity<Map<String, String>> downstreamFailed(RestClientException failure) {
		return ResponseEntity.status(HttpStatus.BAD_GATEWAY)
			.body(body("error", "downstream call failed", "cause", failure.getClass().getSimpleName()));
	}

	/**
	 * Every attempt of an async call outlived the instance's {@code attempt-timeout} (shipping). The
	 * exception is checked, so the handler of runtime exceptions below never sees it.
	 */
	@ExceptionHandler(TimeoutException.class)
	ResponseEntity<Map<String, String>> timedOut(TimeoutException failure) {
		return ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT).body(body("error", "downstream call timed out",
				"cause", failure.getClass().getSimpleName(), "message", String.valueOf(failure.getMessage())));
	}

	@ExceptionHandler(RuntimeException.class)
	ResponseEntity<Map<String, String>> failed(RuntimeException failure) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.body(body("error", failure.getClass().getSimpleName(), "message", String.valueOf(failure.getMessage())));
	}

	/** A JSON object whose fields keep the given order (Map.of has none), so every run prints the same. */
	private static Map<String, String> body(String... namesAndValues) {
		Map<String, String> body = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			body.put(namesAndValues[i], namesAndValues[i + 1]);
		}
		return body;
	}

}
