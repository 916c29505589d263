package dev.retrykit.sample.client;

import dev.retrykit.annotation.Retryable;
import dev.retrykit.sample.client.Model.Stock;

import org.springframework.stereotype.Component;

/**
 * Reads stock from the downstream. Instance {@code inventory}: exponential backoff with jitter, retries
 * only 429 and 5xx answers, waits what a {@code Retry-After} header asks, and shares a retry budget.
 */
@Component
public class InventoryClient {

	private final Downstream downstream;

	InventoryClient(Downstream downstream) {
		this.downstream = downstream;
	}

	/**
	 * @param sku the product
	 * @return its stock
	 */
	@Retryable("inventory")
	public Stock stock(String sku) {
		return Downstream.body(this.downstream.client().get().uri("/inventory/{sku}", sku).retrieve(), Stock.class);
	}

}
