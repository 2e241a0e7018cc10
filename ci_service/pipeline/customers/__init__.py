"""Customers and partners a site names: logo walls, client grids and partner rows
(``records``), the companies of the people its testimonials quote (``testimonials``) and
its customer stories (``stories``); ``extract.page_customers`` reads one page for all."""
