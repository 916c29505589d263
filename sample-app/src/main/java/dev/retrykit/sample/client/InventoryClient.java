package dev.retrykit.sample.client;

import dev.retrykit.sample.client.Model.Stock;

import org.springframework.stereotype.Component;

/**
 * Reads stock from the downstream. No annotation: the call is a plain {@code RestClient} call, and instance
 * {@code inventory} retries it because its {@code http.hosts} claims the inventory API's host. Exponential
 * backoff with jitter, retries only 429 and 5xx answers (a GET may be sent twice), waits what a
 * {@code Retry-After} header asks, and shares a retry budget.
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
	public Stock stock(String sku) {
		return Downstream.body(this.downstream.inventoryClient().get().uri("/inventory/{sku}", sku).retrieve(),
				Stock.class);
	}

}
