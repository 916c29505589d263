package shop;

import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

@Configuration(proxyBeanMethods = false)
@Import({ Inventory.class, Prices.class, Payments.class, Catalog.class })
public class ShopConfiguration {
}
