package dev.retrykit.sample.client;

import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.sample.client.Model.Price;

import org.springframework.stereotype.Component;

/**
 * Reads prices behind a circuit breaker (instance {@code pricing}). When the downstream keeps failing,
 * or the circuit is open, the {@link Recover} method answers with the last known list price.
 */
@Component
public class PricingClient {

	private final Downstream downstream;

	PricingClient(Downstream downstream) {
		this.downstream = downstream;
	}

	/**
	 * @param sku the product
	 * @return its current price, or the cached list price when pricing is unavailable
	 */
	@Retryable("pricing")
	public Price price(String sku) {
		return Downstream.body(this.downstream.client().get().uri("/pricing/{sku}", sku).retrieve(), Price.class);
	}

	/**
	 * @param failure why the call failed (the last HTTP error, or the open circuit)
	 * @param sku the product
	 * @return the cached list price
	 */
	@Recover
	Price cachedPrice(Exception failure, String sku) {
		return new Price(sku, "19.99", true);
	}

}
