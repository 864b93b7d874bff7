double geo_dist(double x1, double y1, double x2, double y2);
