"""Knowledge: catalogs, the roofline model, and the rules that turn facts into findings."""
